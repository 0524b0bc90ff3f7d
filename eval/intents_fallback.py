"""Leave-one-set-out measurement of the nearest-examples intent fallback (issue #4).

For each labelled set S of `app.tutor.intent_examples.EXAMPLE_SETS`, the fallback's examples are all the OTHER sets
and the classifier is evaluated on S, so no question is ever its own neighbour. The blind sets are never read (the
loader refuses them). Two tables:

1. The rules of today (`app.tutor.intents`), per held-out set:

    n          questions in S
    no rule    how many of them fire no rule (only those reach the fallback)
    rules      accuracy of the rules alone (no rule -> `direct`)
    +examples  accuracy of rules + fallback, the configuration the tutor runs
    knn        accuracy of the fallback alone on all of S, gate included
    knn@none   the fallback on the no-rule questions of S (correct / no-rule)
    linear     the alternative fallback measured in the same run, alone on all of S: `LinearIntentClassifier`, a
               logistic regression on the same embeddings trained on the other sets, same gate

   Every one of these sets has since been used to develop the rules, so nearly everything fires a rule and
   `rules` shows fit, not generalisation.

2. Fresh phrasings: the rules of commit `FRESH_RULES_COMMIT` (before issue #4's tuning), read from git, on the sets
   they had not been tuned on (`FRESH_SETS`: heldout_b and retrieval_heldout were untouched then, dev_c was written
   later). Their no-rule questions are the population the fallback is for, as on the blind set; the table gives
   rules-then vs rules-then + fallback, and how many no-rule `direct` questions the fallback wrongly overrode, for
   the vote (knn) and the linear alternative.

    HF_HUB_OFFLINE=1 .venv/bin/python -m eval.intents_fallback [--k 7] [--min-share 0.5] [--sweep] [--embedder NAME]

`--sweep` adds table 2's no-rule accuracy over a grid of k and gate values. Every text is embedded once (a memo in
front of the embedder) and every rule decision is made once, whatever the number of folds.
"""

from __future__ import annotations

import argparse
import functools
import subprocess
import sys
import types
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from app.tutor.intent_examples import (
    DEFAULT_K,
    DEFAULT_MIN_SHARE,
    EXAMPLE_SETS,
    REPO_ROOT,
    Example,
    ExampleIntentClassifier,
    LinearIntentClassifier,
    read_examples,
)
from app.tutor.intents import Intent, classify_intent
from indexing.embedder import Embedder

FRESH_RULES_COMMIT = "27c5987"
FRESH_SETS = ("heldout_b.jsonl", "dev_c.jsonl", "retrieval_heldout.jsonl")

RuleDecision = tuple[str, bool]
"""(intent value, whether any rule fired)"""


class MemoEmbedder:
    """An embedder that embeds each distinct text once and answers repeats from memory (same `name` and `dim`)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self._memo: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str], *, batch_size: int = 32, progress: bool = False) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            for t, v in zip(missing, self.inner.embed(missing, batch_size=batch_size), strict=True):
                self._memo[t] = v
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._memo[t] for t in texts]).astype(np.float32, copy=False)


@functools.cache
def current_rules(question: str) -> RuleDecision:
    result = classify_intent(question)
    return result.intent.value, bool(result.matched)


def rules_at(commit: str) -> Callable[[str], RuleDecision]:
    """The rule classifier of an earlier commit, loaded from `git show` (it was one self-contained module then)."""
    source = subprocess.run(["git", "show", f"{commit}:app/tutor/intents.py"], cwd=REPO_ROOT, capture_output=True,
                            text=True, check=True).stdout
    module = types.ModuleType(f"intents_{commit}")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{commit}:app/tutor/intents.py", "exec"), module.__dict__)  # noqa: S102 - our own history

    @functools.cache
    def decide(question: str) -> RuleDecision:
        result = module.classify_intent(question)
        return result.intent.value, bool(result.matched)

    return decide


@dataclass(frozen=True)
class FoldResult:
    """One held-out set: counts of correct answers under each configuration."""

    name: str
    n: int
    no_rule: int
    rules: int
    with_examples: int
    knn: int
    knn_on_no_rule: int
    direct_overridden: int = 0  # no-rule questions whose gold is direct that the fallback moved elsewhere
    linear: int = 0  # the same four counts for the linear alternative (0 when not measured)
    linear_combined: int = 0
    linear_on_no_rule: int = 0
    linear_overridden: int = 0


def evaluate_fold(name: str, rows: Sequence[Example], examples: Sequence[Example], embedder: Embedder, *,
                  rules: Callable[[str], RuleDecision] = current_rules, k: int = DEFAULT_K,
                  min_share: float = DEFAULT_MIN_SHARE, linear: bool = False) -> FoldResult:
    """Rules, rules + fallback (the fallback decides only when no rule fired, as `RuleIntentClassifier` does) and
    the fallback alone on `rows`, with `examples` as the fallback's data."""
    knn = ExampleIntentClassifier(embedder, examples, k=k, min_share=min_share)
    lin = LinearIntentClassifier(embedder, examples, min_share=min_share) if linear else None
    no_rule = rules_ok = combined_ok = knn_ok = knn_none_ok = overridden = 0
    lin_ok = lin_combined = lin_none = lin_overridden = 0
    for row in rows:
        by_rules, fired = rules(row.question)
        by_knn = knn.classify(row.question).intent.value
        gold = row.intent.value
        no_rule += not fired
        rules_ok += by_rules == gold
        combined_ok += (by_rules if fired else by_knn) == gold
        knn_ok += by_knn == gold
        knn_none_ok += (not fired) and by_knn == gold
        overridden += (not fired) and gold == Intent.DIRECT.value and by_knn != gold
        if lin is not None:
            by_lin = lin.classify(row.question).intent.value
            lin_ok += by_lin == gold
            lin_combined += (by_rules if fired else by_lin) == gold
            lin_none += (not fired) and by_lin == gold
            lin_overridden += (not fired) and gold == Intent.DIRECT.value and by_lin != gold
    return FoldResult(name, len(rows), no_rule, rules_ok, combined_ok, knn_ok, knn_none_ok, overridden,
                      lin_ok, lin_combined, lin_none, lin_overridden)


def _key(question: str) -> str:
    return " ".join(question.lower().split())


def leave_one_set_out(sets: dict[str, list[Example]], embedder: Embedder, *, only: Sequence[str] | None = None,
                      **options: object) -> list[FoldResult]:
    """One fold per set (or per set in `only`): the examples are every other set, minus any question of the held-out
    set that also appears elsewhere."""
    folds = []
    for name, rows in sets.items():
        if only is not None and name not in only:
            continue
        held = {_key(r.question) for r in rows}
        examples = [e for other, es in sets.items() if other != name for e in es if _key(e.question) not in held]
        folds.append(evaluate_fold(name, rows, examples, embedder, **options))  # type: ignore[arg-type]
    return folds


def pooled(folds: Sequence[FoldResult]) -> FoldResult:
    """All folds summed into one row."""
    fields = ("n", "no_rule", "rules", "with_examples", "knn", "knn_on_no_rule", "direct_overridden", "linear",
              "linear_combined", "linear_on_no_rule", "linear_overridden")
    return FoldResult("all", *(sum(getattr(f, a) for f in folds) for a in fields))


def _acc(ok: int, n: int) -> str:
    return f"{ok / n:.3f}" if n else "  -  "


def format_table(folds: Sequence[FoldResult], title: str) -> str:
    """Table 1 (see the module docstring)."""
    width = max(len(f.name) for f in folds)
    lines = [title, "", f"{'held-out set':<{width}}  {'n':>4}  {'no rule':>7}  {'rules':>6}  {'+examples':>9}  "
             f"{'knn':>6}  {'knn@none':<8}  {'linear':>6}"]
    for f in [*folds, pooled(folds)]:
        lines.append(f"{f.name:<{width}}  {f.n:>4}  {f.no_rule:>7}  {_acc(f.rules, f.n):>6}  "
                     f"{_acc(f.with_examples, f.n):>9}  {_acc(f.knn, f.n):>6}  "
                     f"{f'{f.knn_on_no_rule}/{f.no_rule}':<8}  {_acc(f.linear, f.n):>6}")
    return "\n".join(lines)


def format_fresh(folds: Sequence[FoldResult], title: str, gold_mix: Counter[str]) -> str:
    """Table 2 (see the module docstring)."""
    width = max(len(f.name) for f in folds)
    mix = ", ".join(f"{i.value} {gold_mix[i.value]}" for i in Intent)
    lines = [title, f"gold intents of the no-rule questions: {mix}", "",
             f"{'':<{width}}  {'':>4}  {'':>7}  {'':>6}  {'--------- knn ---------':>23}  "
             f"{'------- linear --------':>23}",
             f"{'held-out set':<{width}}  {'n':>4}  {'no rule':>7}  {'rules':>6}  {'+examples':>9}  "
             f"{'right':>6}  {'moved':>5}  {'+examples':>9}  {'right':>6}  {'moved':>5}"]
    for f in [*folds, pooled(folds)]:
        lines.append(f"{f.name:<{width}}  {f.n:>4}  {f.no_rule:>7}  {_acc(f.rules, f.n):>6}  "
                     f"{_acc(f.with_examples, f.n):>9}  {f'{f.knn_on_no_rule}/{f.no_rule}':>6}  "
                     f"{f.direct_overridden:>5}  {_acc(f.linear_combined, f.n):>9}  "
                     f"{f'{f.linear_on_no_rule}/{f.no_rule}':>6}  {f.linear_overridden:>5}")
    lines.append("right = no-rule questions answered right; moved = no-rule direct questions moved elsewhere")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=int, default=DEFAULT_K)
    parser.add_argument("--min-share", type=float, default=DEFAULT_MIN_SHARE)
    parser.add_argument("--sweep", action="store_true", help="table 2 over a grid of k and min_share")
    parser.add_argument("--embedder", default=None, help="embedder name (default: the configured one)")
    args = parser.parse_args(argv)

    from app.settings import Settings
    from indexing.embedder import load_embedder

    embedder = MemoEmbedder(load_embedder(args.embedder or Settings().embedder))
    sets = {path.rsplit("/", 1)[-1]: read_examples(path) for path in EXAMPLE_SETS}
    setting = f"k={args.k}, min_share={args.min_share}, embedder {embedder.name}"

    folds = leave_one_set_out(sets, embedder, k=args.k, min_share=args.min_share, linear=True)
    print(format_table(folds, f"1. rules of today, leave-one-set-out, {setting}"))

    old = rules_at(FRESH_RULES_COMMIT)
    fresh = leave_one_set_out(sets, embedder, only=FRESH_SETS, rules=old, k=args.k, min_share=args.min_share,
                              linear=True)
    mix = Counter(r.intent.value for name in FRESH_SETS for r in sets[name] if not old(r.question)[1])
    print()
    print(format_fresh(fresh, f"2. fresh phrasings: rules of {FRESH_RULES_COMMIT} on sets not tuned on, {setting}",
                       mix))
    if args.sweep:
        print()
        print("no-rule questions of table 2 answered right (direct overridden), rows k, columns min_share:")
        shares = (0.0, 0.4, 0.5, 0.6, 0.7)
        print("  k  " + "".join(f"{m:>10}" for m in shares))
        for k in (1, 3, 5, 7, 11, 15):
            cells = [pooled(leave_one_set_out(sets, embedder, only=FRESH_SETS, rules=old, k=k, min_share=m))
                     for m in shares]
            print(f"  {k:>2} " + "".join(f"{f'{c.knn_on_no_rule}/{c.no_rule} ({c.direct_overridden})':>10}"
                                          for c in cells))


if __name__ == "__main__":
    main()
