"""One error hierarchy for the whole tutor.

Every error says what was wrong and what to do about it. Only the edges (CLI, HTTP API) turn these into exit
codes or status codes; the domain code just raises them.

    TutorError                      base of everything we raise on purpose
    ├── UserError                   the caller asked for something impossible (bad argument, unknown id)
    │   ├── NotFoundError           a course, session, document or question that does not exist (or is not yours)
    │   └── PermissionDeniedError   an action the caller's role may not take
    ├── ConfigError                 settings that cannot work (missing model path, bad URL)
    ├── IngestError                 a file that cannot be ingested (not a PDF, encrypted, no text layer, ...)
    ├── IndexError_                 a course index that is missing, corrupt or built by another embedder
    ├── RetrievalError              retrieval could not run
    ├── LLMError                    the configured generative model failed
    │   ├── LLMUnavailableError     connection refused, timeouts and 5xx after all retries
    │   ├── LLMOutputError          output that does not validate against the schema after the retry
    │   └── ModelRequestsBlocked    a real model request while tests forbid them
    └── StoreError                  the database could not be read or written
"""

from __future__ import annotations


class TutorError(Exception):
    """Base of every error the tutor raises on purpose. `hint` says what to do about it."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} — {self.hint}" if self.hint else self.message


class UserError(TutorError):
    """The caller asked for something that cannot be done as asked."""


class NotFoundError(UserError):
    """A resource that does not exist, or that the caller may not see."""


class PermissionDeniedError(UserError):
    """An action the caller's role does not allow."""


class ConfigError(TutorError):
    """Settings that cannot work."""


class IngestError(TutorError):
    """A file that cannot be ingested. `path` names it."""

    def __init__(self, path: str, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.path = path

    def __str__(self) -> str:
        base = f"{self.path}: {self.message}"
        return f"{base} — {self.hint}" if self.hint else base


class IndexError_(TutorError):  # noqa: N801 - the trailing underscore avoids shadowing the builtin IndexError
    """A course index that is missing, corrupt or incompatible with the configured embedder."""


CourseIndexError = IndexError_


class RetrievalError(TutorError):
    """Retrieval could not run."""


class LLMError(TutorError):
    """The configured generative model failed."""


class LLMUnavailableError(LLMError):
    """The model endpoint could not be reached or kept failing after the retries."""


class LLMOutputError(LLMError):
    """The model's output did not validate against the expected schema, even after a retry."""


class ModelRequestsBlocked(LLMError):
    """A real model request was made while they are blocked (in the tests)."""


class StoreError(TutorError):
    """The database could not be read or written."""
