"""Golden values for the pure retrieval stages."""

import numpy as np
import pytest

from app.retrieval.bm25 import top_rows
from app.retrieval.boost import source_boost
from app.retrieval.dense import cosine_to_rows, dense_search
from app.retrieval.fusion import hybrid_scores, minmax
from app.retrieval.mmr import mmr_order
from eval.retrieval import mrr_at, ndcg_at, recall_at


def test_minmax():
    np.testing.assert_allclose(minmax(np.array([2.0, 4.0, 3.0])), [0.0, 1.0, 0.5])
    np.testing.assert_allclose(minmax(np.array([5.0, 5.0])), [1.0, 1.0])
    assert minmax(np.array([])).size == 0


def test_hybrid_is_weighted_sum_of_normalised_scores():
    dense = np.array([0.9, 0.5, 0.7])  # → 1, 0, 0.5
    bm25 = np.array([0.0, 10.0, 5.0])  # → 0, 1, 0.5
    np.testing.assert_allclose(hybrid_scores(dense, bm25, dense_weight=0.7), [0.7, 0.3, 0.5], atol=1e-6)
    # no lexical match at all: BM25 contributes nothing rather than a constant
    np.testing.assert_allclose(hybrid_scores(dense, np.zeros(3)), [0.7, 0.0, 0.35], atol=1e-6)


def test_top_rows_positive_scores_best_first_ties_by_row():
    rows, scores = top_rows(np.array([0.0, 2.0, 5.0, 2.0, 1.0]), 3)
    assert rows.tolist() == [2, 1, 3] and scores.tolist() == [5.0, 2.0, 2.0]
    assert top_rows(np.zeros(4), 3)[0].size == 0


def test_mmr_prefers_a_diverse_second_pick():
    # candidates 0 and 1 are near duplicates; 2 is different and a little less relevant
    emb = np.array([[1.0, 0.0], [0.995, 0.0998], [0.0, 1.0]], dtype=np.float32)
    rel = np.array([1.0, 0.95, 0.8])
    assert mmr_order(rel, emb, lam=0.7) == [0, 2, 1]
    assert mmr_order(rel, emb, lam=1.0) == [0, 1, 2]  # λ = 1 is plain relevance order


def test_source_boost_rule():
    assert source_boost(0.61, "official") == pytest.approx(0.3)
    assert source_boost(0.6, "official") == 0.0
    assert source_boost(0.9, "supplementary") == 0.0


def test_dense_search_exact_inner_product():
    import faiss

    emb = np.eye(3, dtype=np.float32)
    index = faiss.IndexFlatIP(3)
    index.add(emb)
    q = np.array([0.6, 0.8, 0.0], dtype=np.float32)
    rows, scores = dense_search(index, q, 2)
    assert rows.tolist() == [1, 0]
    np.testing.assert_allclose(scores, [0.8, 0.6], atol=1e-6)
    np.testing.assert_allclose(cosine_to_rows(emb, q, np.array([2, 0])), [0.0, 0.6], atol=1e-6)


def test_rank_metrics():
    rels = [False, True, False, True]
    assert recall_at(rels, 1) == 0.0 and recall_at(rels, 2) == 1.0
    assert mrr_at(rels, 4) == 0.5 and mrr_at(rels, 1) == 0.0
    # DCG = 1/log2(3) + 1/log2(5); ideal with 2 relevant = 1 + 1/log2(3)
    expected = (1 / np.log2(3) + 1 / np.log2(5)) / (1 + 1 / np.log2(3))
    assert ndcg_at(rels, 4, 2) == pytest.approx(expected)
