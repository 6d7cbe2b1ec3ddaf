"""Words shown to people are surface forms, not Porter stems."""

from __future__ import annotations

from routelab.corpus.text import clean_words, readable, surface_forms


def test_most_frequent_surface_form_of_each_stem():
    texts = ["Insurance for the insured; insurance!", "Peace talks", "happily, HAPPILY happy"]
    forms = surface_forms(texts)
    assert forms["insur"] == "insurance"  # 2 x insurance, 1 x insured
    assert forms["happili"] == "happily"
    assert "the" not in forms and "for" not in forms  # stop words are not words
    # every stem the cleaning produces has a form
    for text in texts:
        assert set(clean_words(text)) <= set(forms)


def test_ties_go_to_the_alphabetically_first_form_and_unknown_stems_stay():
    forms = surface_forms(["peace peaceful"])
    assert forms["peac"] == "peace"
    assert readable(["peac", "zzz"], forms) == ["peace", "zzz"]


def test_topic_walkthrough_reads_words_and_counts_matches():
    from types import SimpleNamespace

    import numpy as np
    import pandas as pd

    from routelab.corpus.lab.subscription_stats import topic_walkthrough

    model = SimpleNamespace(weights=np.array([0.2, 0.8]), words=[["a"], ["insur", "flu"]])
    subs = pd.DataFrame(
        {
            "sub_id": [3, 1, 2, 4],
            "topic": [1, 1, 0, 1],
            "words": [["flu"], ["insur", "flu"], ["a"], ["insur"]],
        }
    )
    out = topic_walkthrough(
        model, subs, np.array([0.1, 0.0, 0.5, 0.02]), 100, {"insur": "insurance"}, k=2
    )
    assert out["subscription"].tolist() == ["insurance AND flu", "flu"]  # ids 1, 3
    assert out["posts matched"].tolist() == [0, 10]
    assert out["topic's top words"].iloc[0] == "insurance flu"
