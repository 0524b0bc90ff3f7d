"""Which `Tutor` answers for a course: the injected factory, called once per course and index version.

A tutor holds a loaded course index, so it is cached; a new index version (after an upload or a delete) makes a
new one on the next question.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from app.errors import UserError
from app.llm.base import CallRecord
from app.settings import Settings
from app.tutor.types import Tutor
from indexing.embedder import Embedder
from indexing.store import live_manifest

TutorFactory = Callable[[str], Tutor]


def default_tutor_factory(
    settings: Settings, *, embedder: Embedder | None = None, on_call: Callable[[CallRecord], None] | None = None
) -> TutorFactory:
    """The real tutor: the course's retrieval pipeline and the configured model (grounded mode without one)."""

    def make(course: str) -> Tutor:
        from app.llm.openai_compat import llm_from_settings
        from app.retrieval.pipeline import open_retriever
        from app.tutor.service import TutorService

        retriever = open_retriever(settings, course, embedder=embedder)
        return TutorService(
            retriever, llm=llm_from_settings(settings, on_call=on_call), embedder=embedder, settings=settings
        )

    return make


class TutorCache:
    def __init__(self, factory: TutorFactory, settings: Settings) -> None:
        self._factory = factory
        self._settings = settings
        self._tutors: dict[str, tuple[str, Tutor]] = {}
        self._lock = threading.Lock()

    def get(self, course: str) -> Tutor:
        manifest = live_manifest(self._settings.data_dir, course)
        if manifest is None:
            raise UserError(
                f"course {course!r} has no documents yet", hint=f"upload a PDF: POST /v1/courses/{course}/documents"
            )
        version = manifest.get("version", "")
        with self._lock:
            cached = self._tutors.get(course)
            if cached and cached[0] == version:
                return cached[1]
        tutor = self._factory(course)
        with self._lock:
            self._tutors[course] = (version, tutor)
        return tutor
