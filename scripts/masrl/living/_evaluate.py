"""``masrl discover --evaluate``: how well the ranker orders the recorded screening decisions.

The decisions (:func:`masrl.living._rank.decisions`) are replayed two ways:

* **round by round**: for each search round of ``protocol.yaml`` after the first, every model is
  trained on the decisions of the earlier rounds and ranks the decisions of that round, as it
  would have when the round's search ran;
* **k-fold**: the screened candidates (title and abstract) are split into :data:`FOLDS`
  stratified folds, :data:`REPEATS` times with different shuffles; each fold is ranked by a model
  trained on the other folds and on every record that was never a screened candidate.

For each ranking it reports the ROC AUC, the recall (share of the included found) after screening
10, 20 and 50% of the ranked list, and WSS@95, the work saved over random order at 95% recall
(Cohen et al. 2006): ``(N - screened to reach 95% recall) / N - 0.05``, beside the figures a
random order gives on average.

Three models are compared on the same data:

* ``masrl``: the ranker of ``masrl discover`` (:mod:`._rank`), TF-IDF word 1-2 grams with a
  class-balanced logistic regression, records known by title only weighted down, plus one
  positive example per query family;
* ASReview's ELAS u3, TF-IDF with naive Bayes (the model of ASReview LAB 1, which its version 2
  keeps as "u3"): ``TfidfVectorizer(stop_words="english")``, ``MultinomialNB(alpha=3.822)``, its
  ``Balanced`` sample weights with ``ratio=1.2``;
* ASReview's ELAS u4, the default of ASReview LAB 2 and 3: TF-IDF unigrams and bigrams
  (``sublinear_tf``, ``max_df=0.95``), ``LinearSVC(C=0.11)``, ``Balanced(ratio=9.8)``.

The ASReview models are rebuilt here from scikit-learn with the parameters of
``asreview/models/models.py`` (asreview 3.0.8), because the asreview package requires pandas < 3
while this project runs on pandas 3. As in ASReview, their TF-IDF vocabulary is fitted on every
record of the data set, ranked ones included.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from masrl._records import Corpus
from masrl.living._protocol import Protocol, round_of
from masrl.living._rank import Decision, MissingExtra, decisions, score_texts, training_set

FOLDS = 5
REPEATS = 5
SEED = 20260504
RECALL_AT = (0.1, 0.2, 0.5)


@dataclass(frozen=True)
class Figures:
    auc: float
    recall: tuple[float, ...]  # at each share of RECALL_AT
    wss95: float


Scorer = Callable[[Sequence[Decision], Sequence[Decision], Protocol], list[float]]


def figures(scores: Sequence[float], labels: Sequence[int]) -> Figures:
    """ROC AUC, recall at each share of :data:`RECALL_AT` and WSS@95 of the ranking *scores* gives.

    Ties keep the given order (a stable sort), so an uninformative model gains nothing from them.
    """
    from sklearn.metrics import roc_auc_score  # type: ignore[import-untyped]

    n, included = len(labels), sum(labels)
    order = sorted(range(n), key=lambda i: -scores[i])
    ranked = [labels[i] for i in order]
    found, cumulative = 0, []
    for label in ranked:
        found += label
        cumulative.append(found)
    recall = tuple(cumulative[max(math.ceil(share * n), 1) - 1] / included for share in RECALL_AT)
    needed = math.ceil(0.95 * included)
    screened = next(i + 1 for i, f in enumerate(cumulative) if f >= needed)
    return Figures(float(roc_auc_score(list(labels), list(scores))), recall, (n - screened) / n - 0.05)


def random_figures(labels: Sequence[int]) -> Figures:
    """The expected figures of a random order of *labels*: AUC 0.5; recall after screening k of N
    is k/N; the m-th of I included works lies at m(N+1)/(I+1) on average, which gives WSS@95."""
    n, included = len(labels), sum(labels)
    recall = tuple(max(math.ceil(share * n), 1) / n for share in RECALL_AT)
    needed = math.ceil(0.95 * included)
    return Figures(0.5, recall, (n - needed * (n + 1) / (included + 1)) / n - 0.05)


# ---------------------------------------------------------------------------------------------
# Models


def masrl_scores(train: Sequence[Decision], test: Sequence[Decision], protocol: Protocol) -> list[float]:
    texts, labels, weights = training_set(train, protocol)
    return [s.score for s in score_texts(texts, labels, [d.text for d in test], weights)]


def _balanced(labels: Sequence[int], ratio: float) -> Any:
    """ASReview's ``Balanced`` sample weights: included 1, excluded n1 / (ratio * n0), rescaled to sum to n."""
    import numpy as np

    y = np.asarray(labels)
    weights = np.where(y == 1, 1.0, (y == 1).sum() / (ratio * (y == 0).sum()))
    return weights * (len(y) / weights.sum())


def asreview_u3(train: Sequence[Decision], test: Sequence[Decision], protocol: Protocol) -> list[float]:
    from sklearn.feature_extraction.text import TfidfVectorizer  # type: ignore[import-untyped]
    from sklearn.naive_bayes import MultinomialNB  # type: ignore[import-untyped]

    vectorizer = TfidfVectorizer(stop_words="english")
    vectorizer.fit([d.text for d in (*train, *test)])
    labels = [d.label for d in train]
    model = MultinomialNB(alpha=3.822)
    model.fit(vectorizer.transform([d.text for d in train]), labels, sample_weight=_balanced(labels, 1.2))
    return [float(p) for p in model.predict_proba(vectorizer.transform([d.text for d in test]))[:, 1]]


def asreview_u4(train: Sequence[Decision], test: Sequence[Decision], protocol: Protocol) -> list[float]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.svm import LinearSVC  # type: ignore[import-untyped]

    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1, max_df=0.95)
    vectorizer.fit([d.text for d in (*train, *test)])
    labels = [d.label for d in train]
    model = LinearSVC(loss="squared_hinge", C=0.11)
    model.fit(vectorizer.transform([d.text for d in train]), labels, sample_weight=_balanced(labels, 9.8))
    return [float(s) for s in model.decision_function(vectorizer.transform([d.text for d in test]))]


MODELS: tuple[tuple[str, Scorer], ...] = (
    ("masrl: TF-IDF 1-2 grams + logistic regression", masrl_scores),
    ("ASReview ELAS u3: TF-IDF + naive Bayes", asreview_u3),
    ("ASReview ELAS u4 (default): TF-IDF 1-2 grams + SVM", asreview_u4),
)


# ---------------------------------------------------------------------------------------------
# Replays


def _both(decided: Sequence[Decision]) -> bool:
    return len({d.label for d in decided}) == 2


def rounds_of(decided: Sequence[Decision], corpus: Corpus, protocol: Protocol) -> dict[str, list[Decision]]:
    """The decisions grouped by the round that owns the record each became (protocol order)."""
    records: dict[str, Any] = {p.key: p for p in corpus.papers} | {x.id: x for x in corpus.exclusions}
    out: dict[str, list[Decision]] = {r.id: [] for r in protocol.rounds}
    for d in decided:
        record = records.get(d.record)
        owner = round_of(record, protocol) if record is not None else None
        if owner is None:  # a decision whose record is gone: place it by its date
            owner = next((r.id for r in protocol.rounds if r.origin == "discovery" and r.contains(d.day)), None)
        if owner in out:
            out[owner].append(d)
    return out


def _line(name: str, f: Figures) -> str:
    recall = "".join(f"{r:>8.0%}" for r in f.recall)
    return f"  {name:<52}{f.auc:>8.3f}{recall}{f.wss95:>9.3f}"


def _header() -> str:
    shares = "".join(f"{'R@' + format(s, '.0%'):>8}" for s in RECALL_AT)
    return f"  {'model':<52}{'ROC AUC':>8}{shares}{'WSS@95':>9}"


def _mean(runs: list[Figures]) -> Figures:
    return Figures(
        sum(r.auc for r in runs) / len(runs),
        tuple(sum(r.recall[i] for r in runs) / len(runs) for i in range(len(RECALL_AT))),
        sum(r.wss95 for r in runs) / len(runs),
    )


def evaluate_report(root: Path, corpus: Corpus, protocol: Protocol) -> str:
    """The evaluation as text: one table per round, then the k-fold table."""
    try:
        from sklearn.model_selection import StratifiedKFold  # type: ignore[import-untyped]
    except ImportError:
        raise MissingExtra(
            "--evaluate needs scikit-learn; install the extra with: pip install 'masrl[discover]'"
        ) from None
    decided = decisions(root, corpus)
    screened = [d for d in decided if d.screened]
    lines = [
        f"{len(decided)} decisions: {sum(d.label for d in decided)} included, "
        f"{sum(1 - d.label for d in decided)} excluded; {len(screened)} of them screened candidates with an abstract "
        f"({sum(d.label for d in screened)} included).",
        "",
        "Round by round (train on the earlier rounds, rank the next):",
    ]
    by_round = rounds_of(decided, corpus, protocol)
    earlier: list[Decision] = []
    for r in protocol.rounds:
        current = by_round[r.id]
        if earlier and current and _both(earlier) and _both(current):
            lines.append(
                f"{r.id} ({r.label}): trained on {len(earlier)} ({sum(d.label for d in earlier)} included), "
                f"ranked {len(current)} ({sum(d.label for d in current)} included)"
            )
            lines.append(_header())
            labels = [d.label for d in current]
            for name, scorer in MODELS:
                lines.append(_line(name, figures(scorer(earlier, current, protocol), labels)))
            lines.append(_line("random order (expected)", random_figures(labels)))
        elif current:
            lines.append(f"{r.id} ({r.label}): {len(current)} decisions, nothing earlier to train on with both classes")
        earlier = [*earlier, *current]
    lines += ["", f"k-fold ({FOLDS} stratified folds x {REPEATS} shuffles of the screened candidates; mean of folds):"]
    counts = [sum(d.label for d in screened), sum(1 - d.label for d in screened)]
    if min(counts) < FOLDS:
        lines.append(
            f"  too few screened candidates: {counts[0]} included and {counts[1]} excluded, {FOLDS} of each needed"
        )
        return "\n".join(lines) + "\n"
    rest = [d for d in decided if not d.screened]
    runs: dict[str, list[Figures]] = {name: [] for name, _ in MODELS}
    randoms: list[Figures] = []
    labels_all = [d.label for d in screened]
    for repeat in range(REPEATS):
        folds = StratifiedKFold(n_splits=FOLDS, shuffle=True, random_state=SEED + repeat)
        for train_idx, test_idx in folds.split(screened, labels_all):
            train = [*rest, *(screened[i] for i in train_idx)]
            test = [screened[i] for i in test_idx]
            labels = [d.label for d in test]
            for name, scorer in MODELS:
                runs[name].append(figures(scorer(train, test, protocol), labels))
            randoms.append(random_figures(labels))
    lines.append(_header())
    for name, _ in MODELS:
        lines.append(_line(name, _mean(runs[name])))
    lines.append(_line("random order (expected)", _mean(randoms)))
    return "\n".join(lines) + "\n"
