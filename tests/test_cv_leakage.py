"""Cross-validation without leakage: the Fig. 5 grid (``cv_task``) and
the Fig. 7 grid (``scaling_task``) learn only on the other folds and measure only on the
held-out fold. Each test builds its own split and watches what the tasks hand to the
learner and to the measurement, so a training split that includes the held-out fold (or a
test set that includes training posts) fails here."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.s3tm.lab import shared as ss
from routelab.s3tm.lab.routing import experiments as rx
from routelab.s3tm.lab.routing.workloads import CVData
from routelab.s3tm.lab.shared import kfold_assignment
from routelab.s3tm.lasp import CostFunction
from routelab.s3tm.wordsets import Corpus

N_POSTS, N_FOLDS = 60, 4


def _posts() -> tuple[Corpus, np.ndarray]:
    """Posts whose words say their fold: post p of fold f holds 'common' and 'f<f>w<p%3>'."""
    ids = np.arange(1000, 1000 + N_POSTS)
    folds = kfold_assignment(ids, N_FOLDS, seed=5)
    words = [["common", f"f{f}w{i % 3}"] for i, f in enumerate(folds)]
    return Corpus.from_word_lists(words, post_ids=ids), folds


def _fold_words(corpus: Corpus) -> set[str]:
    return {corpus.vocab[w] for w in np.unique(corpus.indices)}


@pytest.mark.parametrize("fold", range(N_FOLDS))
def test_fig5_cv_task_learns_on_other_folds_and_measures_on_the_fold(fold, monkeypatch) -> None:
    posts, folds = _posts()
    data = CVData("toy", {"tweet": posts}, folds, N_FOLDS)
    seen: dict[str, Corpus] = {}
    real_learn, real_metrics = rx.learn_mapping, rx.route_metrics

    def learn(train, *a, **k):
        seen["train"] = train
        return real_learn(train, *a, **k)

    def metrics(mapping, test, *a, **k):
        seen["test"] = test
        return real_metrics(mapping, test, *a, **k)

    monkeypatch.setattr(rx, "learn_mapping", learn)
    monkeypatch.setattr(rx, "route_metrics", metrics)
    (row,) = rx.cv_task(
        {
            "data": data,
            "kind": "tweet",
            "method": "SALB",
            "n_matchers": 2,
            "folds": [fold],
            "split_hot": False,
            "seed": 0,
        }
    )
    held_out = set(posts.post_ids[folds == fold].tolist())
    assert set(seen["test"].post_ids.tolist()) == held_out
    assert set(seen["train"].post_ids.tolist()).isdisjoint(held_out)
    assert len(seen["train"].post_ids) == N_POSTS - len(held_out)
    # the fold's own words were never learned: only 'common' and the other folds' words
    assert not any(w.startswith(f"f{fold}w") for w in _fold_words(seen["train"]))
    assert row["n_train"] == N_POSTS - len(held_out)
    assert sum(row["loads"]) <= 2 * len(held_out)  # two words per held-out post at most


@pytest.mark.parametrize("fold", range(N_FOLDS))
def test_fig7_scaling_task_learns_on_other_folds_and_measures_on_the_fold(
    fold, monkeypatch
) -> None:
    posts, folds = _posts()
    subs = Corpus.from_word_lists(
        [["common"], ["f0w1"], ["f1w2"], ["f2w0"], ["f3w1"]], vocab=posts.vocab
    )
    data = ss.ScalingData(posts, folds, N_FOLDS, {"tweet": subs})
    seen: dict[str, Corpus] = {}
    real_learn, real_load = ss.learn_mapping, ss.matching_load

    def learn(train, *a, **k):
        seen["train"] = train
        return real_learn(train, *a, **k)

    def load(mapping, placement, subscriptions, test, *a, **k):
        seen["test"] = test
        return real_load(mapping, placement, subscriptions, test, *a, **k)

    monkeypatch.setattr(ss, "learn_mapping", learn)
    monkeypatch.setattr(ss, "matching_load", load)
    ss.scaling_task(
        {
            "data": data,
            "kind": "tweet",
            "n_subs": 5,
            "method": "SALB",
            "placer": "LASP",
            "fold": fold,
            "n_matchers": 2,
            "cost": CostFunction(1.0, 0.0),
            "split_hot": False,
            "seed": 0,
            "capacity": 1.0,
        }
    )
    held_out = set(posts.post_ids[folds == fold].tolist())
    assert set(seen["test"].post_ids.tolist()) == held_out
    assert set(seen["train"].post_ids.tolist()).isdisjoint(held_out)
    assert not any(w.startswith(f"f{fold}w") for w in _fold_words(seen["train"]))
