#!/usr/bin/env bash
# Start a local PostgreSQL 15 for the storage and API tests and print the line to export:
#
#     eval "$(.ci/postgres.sh)"      # sets TUTOR_TEST_POSTGRES_URL
#
# Installs the Debian packages if the server binaries are missing, creates a cluster in $TUTOR_PG_DATA
# (default /tmp/tutor-pg) listening on 127.0.0.1:$TUTOR_PG_PORT (default 54329), a user and a database.
# Idempotent: a second run finds the cluster running and only prints the URL. Everything but the URL goes to stderr.
set -euo pipefail

PGVER=15
PGBIN=/usr/lib/postgresql/$PGVER/bin
PGDATA=${TUTOR_PG_DATA:-/tmp/tutor-pg}
PORT=${TUTOR_PG_PORT:-54329}
DB=tutor_test
ROLE=tutor
PASSWORD=tutor

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi

if [ ! -x "$PGBIN/initdb" ]; then
  echo "postgres.sh: installing postgresql-$PGVER" >&2
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "postgresql-$PGVER" >&2
fi

# The server refuses to run as root: use the 'postgres' system user then.
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql postgres
  as_pg() { runuser -u postgres -- "$@"; }
else
  as_pg() { "$@"; }
fi

if [ ! -f "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$PGDATA"
  chmod 700 "$PGDATA"
  as_pg "$PGBIN/initdb" -D "$PGDATA" -U postgres -A trust --encoding=UTF8 --locale=C.UTF-8 >&2
  {
    echo "listen_addresses = '127.0.0.1'"
    echo "port = $PORT"
    echo "unix_socket_directories = '$PGDATA'"
    echo "fsync = off"                      # a throwaway test cluster
    echo "max_connections = 100"
  } | as_pg tee -a "$PGDATA/postgresql.conf" >/dev/null
fi

if ! as_pg "$PGBIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
  as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w -t 60 start >&2
fi

psql_pg() { as_pg psql -v ON_ERROR_STOP=1 -qtA -h 127.0.0.1 -p "$PORT" -U postgres "$@"; }
if [ -z "$(psql_pg -d postgres -c "SELECT 1 FROM pg_roles WHERE rolname = '$ROLE'")" ]; then
  psql_pg -d postgres -c "CREATE ROLE $ROLE LOGIN PASSWORD '$PASSWORD'" >&2
fi
if [ -z "$(psql_pg -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" ]; then
  psql_pg -d postgres -c "CREATE DATABASE $DB OWNER $ROLE" >&2
fi

echo "export TUTOR_TEST_POSTGRES_URL=postgresql+psycopg://$ROLE:$PASSWORD@127.0.0.1:$PORT/$DB"
