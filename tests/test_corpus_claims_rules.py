"""Notebooks 01-02's claims rows on hand-made numbers: each rule can hold and can fail."""

from __future__ import annotations

import math

from routelab.corpus.lab import claims as cc


def _v(row):
    return row["verdict"].verdict


def test_cleaning_check():
    assert _v(cc.cleaning_row(0, 12)) == "holds"
    assert _v(cc.cleaning_row(3, 12)) == "partly"  # bad tokens left, numbers kept
    assert _v(cc.cleaning_row(3, 0)) == "fails"
    assert cc.cleaning_row(0, 1)["kind"] == "check"


def test_zipf_row():
    zipf = {"exponent": 1.1, "r2": 0.97, "min_rank": 1, "max_rank": 1000}
    assert _v(cc.zipf_row(zipf)) == "holds"
    assert _v(cc.zipf_row(dict(zipf, r2=0.5))) == "fails"
    assert _v(cc.zipf_row(dict(zipf, r2=math.nan))) == "not comparable"


def test_words_per_post_row():
    assert _v(cc.words_per_post_row(6.0, 3.96, 10.4)) == "holds"
    assert _v(cc.words_per_post_row(3.96 / 1.4, 3.96, 10.4)) == "holds"  # inside 1.5x
    assert _v(cc.words_per_post_row(2.0, 3.96, 10.4)) == "direction only"  # shorter still
    assert _v(cc.words_per_post_row(20.0, 3.96, 10.4)) == "fails"  # above the band: long


def test_length_and_lda_checks():
    assert _v(cc.length_row(0.4, 1000)) == "holds"
    assert _v(cc.length_row(0.001, 1000)) == "fails"
    assert _v(cc.lda_row(100, 5, 0.1, 0.1)) == "holds"
    assert _v(cc.lda_row(10, 5, 0.1, 0.1)) == "partly"  # the smoke profile's 10 topics
    assert _v(cc.lda_row(10, 3, 0.5, 0.5)) == "fails"
    assert cc.lda_row(100, 5, 0.1, 0.1)["kind"] == "check"


def test_direction_rows():
    assert _v(cc.length_contrast_row(6.0, 2.5)) == "holds"
    assert _v(cc.length_contrast_row(2.0, 2.5)) == "fails"
    assert _v(cc.popularity_row(1e-5, 1e-3, (0.0, 1e-4))) == "holds"
    assert _v(cc.popularity_row(1e-3, 1e-5, (0.0, 1e-4))) == "fails"


# --------------------------------------------------------------------------- other verdicts


def test_words_per_post_not_comparable():
    assert _v(cc.words_per_post_row(math.nan, 3.96, 10.4)) == "not comparable"


def test_length_and_popularity_not_comparable():
    assert _v(cc.length_row(math.nan, 0)) == "not comparable"
    assert _v(cc.length_contrast_row(math.nan, 2.5)) == "not comparable"


def test_vocabulary_row_is_not_comparable_with_the_reason_from_the_numbers():
    row = cc.vocabulary_row({"posts": 84_021, "unique_words": 20_000})
    assert _v(row) == "not comparable" and "12x fewer than the paper's" in row["verdict"].rule
    assert row["measured"] == "20,000 words in 84,021 posts"
    row = cc.vocabulary_row({"posts": 2_999, "unique_words": 4_360})
    assert "333x fewer" in row["verdict"].rule


# --------------------------------------------------------------------------- notes


def test_popularity_note_follows_the_medians():
    row = cc.popularity_row(2.7e-4, 1.3e-2, (2.5e-4, 1.0e-3))
    assert _v(row) == "holds" and "the medians agree" in row["note"]
    assert "the topic mean is 13x its median" in row["note"]
    row = cc.popularity_row(2.7e-4, 1.3e-3, (2.5e-4, 1.0e-4))
    assert _v(row) == "holds" and "the medians do not" in row["note"]
    row = cc.popularity_row(1e-3, 1e-5, (1e-3, 1e-5))
    assert _v(row) == "fails" and "the medians do not" in row["note"]
    assert "carry it" not in row["note"]


def test_lda_note_names_the_profile_only_when_it_differs():
    assert "this profile" not in cc.lda_row(100, 5, 0.1, 0.1)["note"]
    assert "this profile fits 10 topics" in cc.lda_row(10, 5, 0.1, 0.1)["note"]
