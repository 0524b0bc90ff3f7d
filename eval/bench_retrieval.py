"""Retrieval latency benchmark: our stages against a naive baseline, measured in the same run.

    python eval/bench_retrieval.py [--sizes 10000,100000] [--queries 200] [--json]

Corpora are synthetic but shaped like real ones: passages are recombined sentences of the sample course, and their
vectors are real MiniLM embeddings of a few thousand such passages, each reused with Gaussian jitter and
re-normalised (embedding 100k passages for real would take ~25 minutes on 2 cores). Queries are held-out
passages' vectors and words. Reported per size: p50/p95 per stage and end to end *after* the query is embedded
(rerank off, as the latency budget is stated), the naive baseline (rank-bm25 `get_scores` + exhaustive numpy dot
product, then the same fusion and MMR) and the ratio, the approximate index's recall@50 against exact search, and
the query-embedding time separately.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _sentences() -> list[str]:
    from indexing.chunk import split_sentences

    text = (ROOT / "data/sample_course/notes.md").read_text(encoding="utf-8")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith(("#", "```", "|"))]
    return [s for ln in lines for s in split_sentences(ln) if len(s) > 30]


def make_corpus(n: int, base_texts: list[str], base_vecs: np.ndarray, rng: np.random.Generator):
    pick = rng.integers(0, len(base_texts), n)
    texts = [base_texts[i] for i in pick]
    vecs = base_vecs[pick] + rng.normal(0, 0.035, (n, base_vecs.shape[1])).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return texts, vecs.astype(np.float32)


def pct(xs: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(xs), p))


def bench_size(n, base_texts, base_vecs, queries, qvecs, settings, rng) -> dict:
    import faiss
    from rank_bm25 import BM25Okapi

    from app.retrieval.fusion import hybrid_scores
    from app.retrieval.mmr import mmr_order
    from app.retrieval.pipeline import RetrievalPipeline, Stages
    from indexing.asking import asking_shares
    from indexing.embedder import HashEmbedder
    from indexing.models import Chunk
    from indexing.store import CourseIndex, build_bm25, build_faiss
    from indexing.tokenize import tokenize

    texts, vecs = make_corpus(n, base_texts, base_vecs, rng)
    chunks = [Chunk(f"c{i}", "bench", "bench.pdf", "official", 1, 1, "", t) for i, t in enumerate(texts)]
    t0 = time.perf_counter()
    findex = build_faiss(vecs, ann_threshold=settings.ann_threshold)
    bm25 = build_bm25(texts)
    asking = asking_shares(chunks)  # as ingestion stores it (asking.npy)
    build_s = time.perf_counter() - t0
    embedder = HashEmbedder(dim=vecs.shape[1], name="bench")
    index = CourseIndex("bench", {"embedder": embedder.name}, chunks, vecs, findex, bm25, asking=asking)
    pipe = RetrievalPipeline(index, embedder, settings=settings, reranker=None)
    stages = Stages(rerank=False, boost=False)

    # ours
    per_stage: dict[str, list[float]] = {}
    for q, qv in zip(queries, qvecs):
        res = pipe.search_vector(q, qv, k=8, stages=stages)
        for key, v in res.timings_ms.items():
            per_stage.setdefault(key, []).append(v)

    # naive baseline doing the same stages
    t0 = time.perf_counter()
    naive_bm25 = BM25Okapi([tokenize(t) or ["∅"] for t in texts])
    naive_build_s = time.perf_counter() - t0
    naive: list[float] = []
    for q, qv in zip(queries, qvecs):
        t = time.perf_counter()
        dense_all = vecs @ qv
        d_rows = np.argsort(-dense_all)[:50]
        b_all = naive_bm25.get_scores(tokenize(q))
        b_rows = np.argsort(-b_all)[:50]
        cand = np.unique(np.concatenate([d_rows, b_rows]))
        rel = hybrid_scores(dense_all[cand], b_all[cand].astype(np.float32))
        order = np.argsort(-rel)[:30]
        mmr_order(rel[order], vecs[cand[order]], lam=0.7)
        naive.append((time.perf_counter() - t) * 1000)

    # approximate index recall against exact search
    recall = None
    if findex.ntotal > settings.ann_threshold:
        exact = faiss.IndexFlatIP(vecs.shape[1])
        exact.add(vecs)
        _, e_rows = exact.search(qvecs, 50)
        _, a_rows = findex.search(qvecs, 50)
        recall = float(np.mean([len(set(a) & set(e)) / 50 for a, e in zip(a_rows, e_rows)]))

    ours_total = per_stage["total"]
    return {
        "chunks": n,
        "index": "hnsw" if findex.ntotal > settings.ann_threshold else "flat",
        "build_s": round(build_s, 2),
        "naive_build_s": round(naive_build_s, 2),
        "stages_ms": {k: {"p50": round(pct(v, 50), 3), "p95": round(pct(v, 95), 3)} for k, v in per_stage.items()},
        "end_to_end_ms": {"p50": round(pct(ours_total, 50), 3), "p95": round(pct(ours_total, 95), 3)},
        "naive_ms": {"p50": round(pct(naive, 50), 3), "p95": round(pct(naive, 95), 3)},
        "speedup_p50": round(pct(naive, 50) / pct(ours_total, 50), 1),
        "speedup_p95": round(pct(naive, 95) / pct(ours_total, 95), 1),
        "ann_recall_at_50": None if recall is None else round(recall, 4),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000", help="corpus sizes, comma separated")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--base", type=int, default=3000, help="distinct real embeddings the corpora are built from")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from app.settings import Settings
    from indexing.embedder import load_embedder

    rng = np.random.default_rng(7)
    random.seed(7)
    sents = _sentences()
    # passages of 2-4 sentences, like ~500-character chunks
    base_texts = [" ".join(rng.choice(sents, size=int(rng.integers(2, 5)))) for _ in range(args.base + args.queries)]
    emb = load_embedder()
    t0 = time.perf_counter()
    base_vecs = emb.embed(base_texts, batch_size=32)
    embed_s = time.perf_counter() - t0
    queries = [" ".join(t.split()[:14]) for t in base_texts[args.base :]]
    t0 = time.perf_counter()
    qvecs = np.stack([emb.embed([q])[0] for q in queries])
    q_embed_ms = (time.perf_counter() - t0) * 1000 / len(queries)
    qvecs = qvecs + rng.normal(0, 0.02, qvecs.shape).astype(np.float32)
    qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
    settings = Settings()
    out = {
        "embedder": emb.name,
        "embed_chunks_per_s": round(len(base_texts) / embed_s, 1),
        "query_embed_ms_mean": round(q_embed_ms, 2),
        "ann_threshold": settings.ann_threshold,
        "sizes": [],
    }
    for n in [int(x) for x in args.sizes.split(",")]:
        out["sizes"].append(bench_size(n, base_texts[: args.base], base_vecs[: args.base], queries, qvecs, settings, rng))
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"query embedding ({emb.name}): {out['query_embed_ms_mean']} ms mean; corpus embedding "
          f"{out['embed_chunks_per_s']} chunks/s")
    for s in out["sizes"]:
        print(f"\n== {s['chunks']:,} chunks ({s['index']} index; built in {s['build_s']} s, naive BM25 in "
              f"{s['naive_build_s']} s)")
        for k, v in s["stages_ms"].items():
            print(f"  {k:<8} p50 {v['p50']:>8.3f} ms   p95 {v['p95']:>8.3f} ms")
        e, nv = s["end_to_end_ms"], s["naive_ms"]
        print(f"  ours     p50 {e['p50']:>8.3f} ms   p95 {e['p95']:>8.3f} ms   (after embedding, rerank off)")
        print(f"  naive    p50 {nv['p50']:>8.3f} ms   p95 {nv['p95']:>8.3f} ms   (rank-bm25 + numpy dot, same stages)")
        print(f"  speed-up ×{s['speedup_p50']} at p50, ×{s['speedup_p95']} at p95")
        if s["ann_recall_at_50"] is not None:
            print(f"  HNSW recall@50 against exact search: {s['ann_recall_at_50']:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
