"""The claims tables of notebooks 01 (corpus) and 02 (subscriptions), S3-TM Sect. 6.1.

Each ``*_row`` function turns measured numbers into one claims row with a verdict from
:mod:`routelab.claims` (tolerances are the constants below, declared before measuring);
``corpus_claims`` / ``subscription_claims`` measure and record them on a
:class:`~routelab.report.NotebookReport`. Rows that only check our own configuration
(lengths we drew, LDA settings we chose, our cleaning) are ``kind="check"``. No row judges
a measured time. Notes are built from the measured numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.claims import (
    Verdict,
    at_least,
    at_most,
    combine,
    declarations,
    direction,
    not_comparable,
    share,
)
from routelab.corpus.lab.paper_values import S3TM_TABLE1, per_post

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from routelab.report import NotebookReport

# a word is letters (any script, with combining marks) and digits, already lower-cased
_NON_WORD = r"[^\p{Ll}\p{Lo}\p{Lm}\p{M}\p{N}]"


def token_check(posts: DataFrame) -> tuple[int, int]:
    """Words left that the cleaning rules should have removed (links, screen names, non-word
    tokens), and posts that kept a number."""
    import pyspark.sql.functions as F

    w = F.col("w")
    words = posts.select(F.explode("words").alias("w"))
    bad = words.where(w.startswith("http") | w.startswith("@") | w.rlike(_NON_WORD)).count()
    numbers = posts.where(F.exists("words", lambda x: x.rlike("^[0-9]+$"))).count()
    return bad, numbers


#: the rows, declared once (claims.toml beside this module)
ROWS = declarations(__file__)

# tolerances, declared before measuring
WORDS_PER_POST_FACTOR = 1.5  # ours may lie this factor outside the paper's two corpora
ZIPF_MIN_R2 = 0.9  # "a straight line on log-log axes"
LENGTH_TEST_LEVEL = 0.01  # chi-square level for the lengths we drew ourselves


def cleaning_row(bad_tokens: int, posts_with_numbers: int) -> dict:
    """Row ``cleaning`` (claims.toml)."""
    return ROWS["cleaning"].row(
        f"{bad_tokens} bad tokens left; {posts_with_numbers:,} posts keep a number",
        combine([at_most(bad_tokens, 0, what="bad tokens"),
                 at_least(posts_with_numbers, 1, what="posts with a number")]),
    )  # fmt: skip


def zipf_row(zipf: Mapping[str, Any]) -> dict:
    return ROWS["zipf"].row(
        f"Zipf exponent {zipf['exponent']:.2f}, R² {zipf['r2']:.3f} over ranks "
        f"{zipf['min_rank']:,}–{zipf['max_rank']:,}",
        at_least(zipf["r2"], ZIPF_MIN_R2, what="R² of the log-log fit"),
        "least-squares fit of log frequency on log rank",
    )


def words_per_post_row(ours: float, lo: float, hi: float) -> dict:
    """Row ``words_per_post`` (claims.toml)."""
    band = (lo / WORDS_PER_POST_FACTOR, hi * WORDS_PER_POST_FACTOR)
    rule = (
        f"holds if {band[0]:.3g} <= words per post <= {band[1]:.3g} (the paper's range widened "
        f"{WORDS_PER_POST_FACTOR:g}x); direction only if below it; fails above it"
    )
    if math.isnan(ours):
        verdict = not_comparable(rule + "; nothing measured")
    elif band[0] <= ours <= band[1]:
        verdict = Verdict("holds", rule)
    else:
        verdict = Verdict("direction only" if ours < band[0] else "fails", rule)
    return ROWS["words_per_post"].row(
        f"{ours:.2f} words per post", verdict,
        f"tolerance: {WORDS_PER_POST_FACTOR}x beyond the paper's range", lo=lo, hi=hi,
    )  # fmt: skip


def corpus_claims(
    report: NotebookReport,
    posts: DataFrame,
    table: Mapping[str, int],
    zipf: Mapping[str, Any],
    preprocess_report: Any,
) -> None:
    """Notebook 01: cleaning rules, heavy tail (Fig. 4), post length, vocabulary size."""
    ours = per_post(table)
    lo = per_post(S3TM_TABLE1["paper: April 2013"])
    hi = per_post(S3TM_TABLE1["paper: Sparse"])
    bad, numbers = token_check(posts)
    report.add_headline(
        **table,
        words_per_post=ours["words_per_post"],
        zipf_exponent=zipf["exponent"],
        zipf_r2=zipf["r2"],
        rows_in=preprocess_report.rows_in,
        rows_out=preprocess_report.rows_out,
    )
    report.claim(**cleaning_row(bad, numbers))
    report.claim(**zipf_row(zipf))
    report.claim(
        **words_per_post_row(ours["words_per_post"], lo["words_per_post"], hi["words_per_post"])
    )
    report.claim(**vocabulary_row(table))
    report.claim(**word_pairs_row(table))
    settings = getattr(preprocess_report, "settings", {}) or {}
    report.claim(**stemming_row(settings))
    report.claim(**stop_words_row(settings))


#: Table 1: the paper's learning corpora hold about 1M tweets.
PAPER_CORPUS_POSTS = 1_000_000


def vocabulary_row(table: Mapping[str, int]) -> dict:
    """Row ``vocabulary`` (claims.toml)."""
    ratio = PAPER_CORPUS_POSTS / table["posts"] if table["posts"] else float("inf")
    reason = (
        f"our real corpus has {table['posts']:,} posts, {ratio:.0f}x fewer than the paper's "
        "1M, and is topical (health news, one account); vocabulary grows sublinearly with "
        "corpus size"
        if ratio > 1
        else f"our corpus has {table['posts']:,} posts; the paper's words are of real tweets"
    )
    return ROWS["vocabulary"].unmeasured(
        reason, f"{table['unique_words']:,} words in {table['posts']:,} posts"
    )


def length_row(p_value: float, n: int) -> dict:
    return ROWS["lengths"].row(
        f"χ² p = {p_value:.3f} on {n:,} subscriptions",
        at_least(p_value, LENGTH_TEST_LEVEL, what="χ² p-value"),
        "we drew the lengths from Zipf(0.5): this checks our generator",
    )


def lda_row(n_topics: int, words_per_topic: int, alpha: float, beta: float) -> dict:
    settings = [n_topics == 100, words_per_topic == 5, alpha == 0.1, beta == 0.1]
    row = ROWS["lda"]
    return row.row(
        f"{n_topics} topics × {words_per_topic} words, α = {alpha}, β = {beta}",
        share(sum(settings), len(settings), partly_at=0.25, rule=row.rule),
        "gensim online VB instead of Mallet's Gibbs sampler"
        + ("" if n_topics == 100 else f"; this profile fits {n_topics} topics"),
    )  # fmt: skip


def length_contrast_row(tweet_len: float, topic_len: float) -> dict:
    return ROWS["length_contrast"].row(
        f"mean length {tweet_len:.2f} (tweet) vs {topic_len:.2f} (topic)",
        direction(tweet_len / topic_len, neutral=1.0, expected="above"),
    )


def popularity_row(tweet_rate: float, topic_rate: float, medians: tuple[float, float]) -> dict:
    return ROWS["popularity"].row(
        f"mean share of posts matched {tweet_rate:.2e} (tweet) vs {topic_rate:.2e} (topic)",
        direction(topic_rate / tweet_rate if tweet_rate else float("inf"), neutral=1.0,
                  expected="above"),
        "popularity = fraction of the corpus's posts a subscription matches (exact set "
        f"containment); {_median_note(topic_rate, medians)}",
    )  # fmt: skip


def _median_note(topic_rate: float, medians: tuple[float, float]) -> str:
    """Whether the medians (tweet, topic) agree with the means' order, and how far the topic
    mean lies above its median (a few popular subscriptions carrying the mean)."""
    tweet_med, topic_med = medians
    text = f"medians {tweet_med:.1e} (tweet) vs {topic_med:.1e} (topic)"
    if topic_med > tweet_med:
        text += ": the medians agree"
    else:
        text += ": the medians do not, the typical topic subscription is no more popular"
    if topic_med > 0 and topic_rate / topic_med >= 2:
        text += (
            f"; the topic mean is {topic_rate / topic_med:.0f}x its median, so a few popular "
            "topic subscriptions carry it"
        )
    return text


def subscription_claims(
    report: NotebookReport,
    model: Any,
    subs: Mapping[str, pd.DataFrame],
    summary: pd.DataFrame,
    expected_lengths: np.ndarray,
    alpha: float,
    beta: float,
) -> None:
    """Notebook 02: topic-subscription lengths, the LDA setup, length and popularity of the
    two workloads."""
    from scipy.stats import chisquare

    max_len = len(expected_lengths)
    topic_len = subs["topic"]["words"].map(len)
    observed = topic_len.value_counts().reindex(range(1, max_len + 1), fill_value=0).to_numpy()
    p_value = chisquare(observed, expected_lengths * observed.sum()).pvalue
    tw, tp = summary.loc["tweet"], summary.loc["topic"]
    words_per_topic = min(map(len, model.words))
    report.add_headline(
        n_topics=model.n_topics,
        subscriptions_per_kind=len(subs["tweet"]),
        mean_length_tweet=tw["mean length"],
        mean_length_topic=tp["mean length"],
        mean_match_rate_tweet=tw["mean match rate"],
        mean_match_rate_topic=tp["mean match rate"],
    )
    report.claim(**length_row(float(p_value), len(topic_len)))
    report.claim(**lda_row(model.n_topics, words_per_topic, alpha, beta))
    report.claim(**length_contrast_row(tw["mean length"], tp["mean length"]))
    report.claim(
        **popularity_row(
            tw["mean match rate"],
            tp["mean match rate"],
            (tw["median match rate"], tp["median match rate"]),
        )
    )


#: Table 1's distinct co-occurring word pairs (April 2013 / Sparse learning corpora).
PAPER_WORD_PAIRS = (5_507_437, 7_559_671)


def word_pairs_row(table: Mapping[str, int]) -> dict:
    """Row ``word_pairs`` (claims.toml)."""
    posts = table["posts"]
    ratio = PAPER_CORPUS_POSTS / posts if posts else float("inf")
    pairs = table.get("word_pairs")
    if posts and ratio > 1:
        reason = (
            f"word-pair counts of the paper's 1M-tweet corpora: ours has {posts:,} posts, "
            f"{ratio:.0f}x fewer, and distinct pairs do not scale in proportion to the posts"
        )
    else:
        reason = (
            f"word-pair counts of the paper's 1M-tweet corpora of real tweets: ours has "
            f"{posts:,} posts of another corpus"
        )
    measured = (
        "not counted"
        if pairs is None
        else f"{pairs:,} pairs in {posts:,} posts ({pairs / posts:.2f} per post)"
        if posts
        else f"{pairs:,} pairs"
    )
    per_post = ", ".join(f"{p / 979_442:.2f}" for p in PAPER_WORD_PAIRS)
    return ROWS["word_pairs"].unmeasured(
        reason, measured,
        f"the paper's corpora have {per_post} pairs per post; pairs per post grow with "
        "the corpus (a new post adds pairs only where its words have not met before)",
    )  # fmt: skip


def stemming_row(settings: Mapping[str, Any]) -> dict:
    """Row ``stemming`` (claims.toml)."""
    rule = ROWS["stemming"].rule
    stem, mode = settings.get("stem"), settings.get("stem_mode")
    if stem is None:
        verdict, measured = not_comparable(rule + "; settings not recorded"), "not recorded"
    elif not stem:
        verdict, measured = Verdict("fails", rule), "no stemming"
    elif mode == "original":
        verdict, measured = Verdict("holds", rule), "Porter stemming, original 1980 algorithm"
    else:
        verdict, measured = Verdict("direction only", rule), f"Porter stemming, {mode} variant"
    return ROWS["stemming"].row(
        measured, verdict, "NLTK's PorterStemmer; this checks our preprocessing setting"
    )


def stop_words_row(settings: Mapping[str, Any], n_stop_words: int | None = None) -> dict:
    """Row ``stop_words`` (claims.toml)."""
    from routelab.corpus.text import DEFAULT_STOP_LIST, STOP_LISTS, load_stopwords

    choice = settings.get("stopwords")
    if n_stop_words is None:
        if choice == "default":
            n_stop_words = len(load_stopwords(DEFAULT_STOP_LIST))
        elif choice in STOP_LISTS:
            n_stop_words = len(load_stopwords(choice))
        if isinstance(choice, str) and choice.startswith("custom ("):
            n_stop_words = int(choice[len("custom (") : -1])
    rule = ROWS["stop_words"].rule
    if choice is None:
        verdict, measured = not_comparable(rule + "; settings not recorded"), "not recorded"
    elif n_stop_words == 0:
        verdict, measured = Verdict("fails", rule), "no stop words removed (empty list)"
    else:
        what = {
            "default": "Spark's English list + the Glasgow list",
            "spark": "Spark's English list alone",
        }.get(choice, choice)
        measured = f"{n_stop_words:,} stop words removed ({what})"
        verdict = not_comparable(
            rule + f"; otherwise not comparable: Mallet's list is not redistributable here, "
            f"we remove another list of {n_stop_words:,} words"
        )
    return ROWS["stop_words"].row(
        measured, verdict, "this checks our preprocessing setting; which words a list holds "
        "changes the vocabulary and the LDA topics",
    )  # fmt: skip
