"""Ingestion throughput against the raw embedder, measured in the same run.

    python eval/bench_ingest.py [--pdf FILE] [--repeat 3] [--json]

Both figures are chunks per second over the same chunk texts: the raw embedder alone (the model loaded, batches of
`embed_batch_size`), and the whole ingestion of the PDF into a fresh course (extract, clean, chunk, embed, write the
index). Their ratio says how much ingestion costs beyond embedding (the goal is ≥ 85%). Best of `--repeat` runs each,
so a busy machine disturbs both the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pdf", type=Path, default=ROOT / "data/sample_course/search-algorithms.pdf")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from app.settings import Settings
    from indexing.chunk import index_text
    from indexing.embedder import load_embedder
    from indexing.ingest import ingest_files, process_file
    from indexing.store import create_course

    settings = Settings()
    emb = load_embedder(settings.embedder)
    emb.embed(["warm up"])
    chunks, _, _ = process_file(args.pdf, course="bench", source_kind="official")
    texts = [index_text(c) for c in chunks]

    raw, full = [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        for i in range(0, len(texts), settings.embed_batch_size):
            emb.embed(texts[i : i + settings.embed_batch_size], batch_size=settings.embed_batch_size)
        raw.append(len(texts) / (time.perf_counter() - t))
        with tempfile.TemporaryDirectory() as d:
            create_course(Path(d), "bench")
            t = time.perf_counter()
            report = ingest_files([args.pdf], data_dir=Path(d), course="bench", embedder=emb,
                                  batch_size=settings.embed_batch_size)
            full.append(report.chunks_total / (time.perf_counter() - t))
    out = {
        "pdf": str(args.pdf),
        "chunks": len(texts),
        "raw_embedder_chunks_per_s": round(max(raw), 1),
        "ingest_chunks_per_s": round(max(full), 1),
        "ratio": round(max(full) / max(raw), 3),
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{out['chunks']} chunks from {args.pdf.name}: raw embedder {out['raw_embedder_chunks_per_s']} chunks/s, "
              f"full ingestion {out['ingest_chunks_per_s']} chunks/s → {out['ratio']:.0%} of the embedder")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
