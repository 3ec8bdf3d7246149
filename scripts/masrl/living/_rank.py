"""Rank candidates by how likely the protocol is to include them.

A TF-IDF model of word unigrams and bigrams with a logistic regression, trained on the corpus's
own decisions: every retained paper (title, summary and notes) is a positive example, every
exclusion (label and note) a negative one, and each query family's terms make one more positive
example, so the protocol's vocabulary counts even where few papers use it. A candidate's score is
the probability of inclusion; the terms behind it are the features that add most to its logit
(TF-IDF weight times coefficient).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from masrl.corpus._records import Corpus
from masrl.living._protocol import Protocol

TOP_TERMS = 5


class MissingExtra(Exception):
    """scikit-learn is not installed."""


@dataclass(frozen=True)
class Score:
    score: float
    terms: tuple[str, ...]


def training_set(corpus: Corpus, protocol: Protocol) -> tuple[list[str], list[int]]:
    """(texts, labels): retained papers and family terms are 1, exclusions 0."""
    texts: list[str] = []
    labels: list[int] = []
    for p in corpus.papers:
        texts.append(" ".join((p.title, p.summary, p.notes or "")))
        labels.append(1)
    for family in protocol.query_families:
        texts.append(" ".join(family.terms))
        labels.append(1)
    for e in corpus.exclusions:
        texts.append(" ".join((e.label, e.note)))
        labels.append(0)
    return texts, labels


def _sklearn() -> Any:
    try:
        from sklearn.feature_extraction.text import TfidfVectorizer  # type: ignore[import-untyped]
        from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]
    except ImportError:
        raise MissingExtra(
            "ranking needs scikit-learn; install the extra with: pip install 'masrl[discover]'"
        ) from None
    return TfidfVectorizer, LogisticRegression


def rank(corpus: Corpus, protocol: Protocol, texts: Sequence[str]) -> list[Score]:
    """A :class:`Score` for each of *texts*, in the same order."""
    import numpy as np

    tfidf_cls, logreg_cls = _sklearn()
    train, labels = training_set(corpus, protocol)
    if not texts:
        return []
    if len(set(labels)) < 2:  # nothing excluded yet: the terms alone cannot separate classes
        return [Score(0.5, ()) for _ in texts]
    vectorizer = tfidf_cls(ngram_range=(1, 2), sublinear_tf=True, stop_words="english", min_df=1)
    x_train = vectorizer.fit_transform(train)
    model = logreg_cls(class_weight="balanced", max_iter=1000, C=4.0)
    model.fit(x_train, labels)
    x = vectorizer.transform(list(texts))
    probs = model.predict_proba(x)[:, 1]
    coef = model.coef_[0]
    names = vectorizer.get_feature_names_out()
    contrib = x.multiply(coef).tocsr()
    out = []
    for i in range(contrib.shape[0]):
        start, end = contrib.indptr[i], contrib.indptr[i + 1]
        data, cols = contrib.data[start:end], contrib.indices[start:end]
        positive = data > 0
        data, cols = data[positive], cols[positive]
        order = np.lexsort((cols, -data))[:TOP_TERMS]  # largest first, ties by column for a stable order
        out.append(Score(round(float(probs[i]), 3), tuple(str(names[cols[j]]) for j in order)))
    return out
