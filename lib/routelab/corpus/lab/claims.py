"""The claims tables of notebooks 01 (corpus) and 02 (subscriptions), S3-TM Sect. 6.1: each
``*_row`` grades one row of claims.toml by the tolerances below; ``corpus_claims`` and
``subscription_claims`` measure and record them. No row judges a measured time."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from routelab import claims
from routelab.claims import Verdict, not_comparable
from routelab.corpus.lab.paper_values import S3TM_TABLE1, per_post

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from pyspark.sql import DataFrame

    from routelab.report import NotebookReport

#: the rows, declared once (claims.toml beside this module)
ROWS = claims.declarations(__file__)

# tolerances, declared before measuring
WORDS_PER_POST_FACTOR = 1.5  # ours may lie this factor outside the paper's two corpora
ZIPF_MIN_R2 = 0.9  # "a straight line on log-log axes"
LENGTH_TEST_LEVEL = 0.01  # chi-square level for the lengths we drew ourselves
PAPER_CORPUS_POSTS = 1_000_000  # Table 1: the paper's learning corpora hold about 1M tweets

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


def cleaning_row(bad_tokens: int, posts_with_numbers: int) -> dict:
    """Row ``cleaning``."""
    bad = claims.at_most(bad_tokens, 0, what="bad tokens")
    numbers = claims.at_least(posts_with_numbers, 1, what="posts with a number")
    verdict = claims.combine([bad, numbers])
    return ROWS["cleaning"].graded(verdict, bad=bad_tokens, numbers=posts_with_numbers)


def zipf_row(zipf: Mapping[str, Any]) -> dict:
    """Row ``zipf``, from the fit's exponent, R² and ranks."""
    verdict = claims.at_least(zipf["r2"], ZIPF_MIN_R2, what="R² of the log-log fit")
    return ROWS["zipf"].graded(verdict, **zipf)


def words_per_post_row(ours: float, lo: float, hi: float) -> dict:
    """Row ``words_per_post``: ``lo``-``hi``, the paper's range, widened by the factor."""
    row, factor = ROWS["words_per_post"], WORDS_PER_POST_FACTOR
    low, high = lo / factor, hi * factor
    band = row.text("band", low=low, high=high, factor=factor)
    if math.isnan(ours):
        verdict = not_comparable(band + "; nothing measured")
    elif low <= ours <= high:
        verdict = Verdict("holds", band)
    else:
        verdict = Verdict("direction only" if ours < low else "fails", band)
    return row.graded(verdict, ours=ours, lo=lo, hi=hi, factor=factor)


def _reason(row: claims.Declaration, posts: int, *, empty_is_smaller: bool) -> str:
    """Why ``row`` is not comparable: our corpus has fewer posts than the paper's 1M (how many
    times fewer; no posts: infinitely, if ``empty_is_smaller``), or it is another corpus."""
    ratio = PAPER_CORPUS_POSTS / posts if posts else float("inf")
    if ratio > 1 and (posts or empty_is_smaller):
        return row.text("smaller", posts=posts, ratio=ratio)
    return row.text("other", posts=posts)


def vocabulary_row(table: Mapping[str, int]) -> dict:
    """Row ``vocabulary``: not comparable; the reason says how much smaller our corpus is."""
    row, posts = ROWS["vocabulary"], table["posts"]
    measured = row.text("measured", words=table["unique_words"], posts=posts)
    return row.unmeasured(_reason(row, posts, empty_is_smaller=True), measured)


def word_pairs_row(table: Mapping[str, int]) -> dict:
    """Row ``word_pairs``: not comparable; the reason says how our corpus differs."""
    row, posts, pairs = ROWS["word_pairs"], table["posts"], table.get("word_pairs")
    if pairs is None:
        measured = row.text("not_counted")
    elif posts:
        measured = row.text("per_post", pairs=pairs, posts=posts, per_post=pairs / posts)
    else:
        measured = row.text("pairs", pairs=pairs)
    paper_pairs = ", ".join(f"{per_post(t)['pairs_per_post']:.2f}" for t in S3TM_TABLE1.values())
    reason = _reason(row, posts, empty_is_smaller=False)
    return row.unmeasured(reason, measured, paper_pairs=paper_pairs)


def stemming_row(settings: Mapping[str, Any]) -> dict:
    """Row ``stemming``."""
    row, stem, mode = ROWS["stemming"], settings.get("stem"), settings.get("stem_mode")
    if stem is None:
        return row.unmeasured(row.rule + "; settings not recorded", row.text("not_recorded"))
    if not stem:
        return row.row(row.text("none"), Verdict("fails", row.rule))
    if mode == "original":
        return row.row(row.text("original"), Verdict("holds", row.rule))
    return row.row(row.text("variant", mode=mode), Verdict("direction only", row.rule))


def stop_words_row(settings: Mapping[str, Any], n_stop_words: int | None = None) -> dict:
    """Row ``stop_words``; ``n_stop_words`` (the list's size) is counted when not given."""
    from routelab.corpus.text import DEFAULT_STOP_LIST, STOP_LISTS, load_stopwords

    row, choice = ROWS["stop_words"], settings.get("stopwords")
    if n_stop_words is None and isinstance(choice, str) and choice.startswith("custom ("):
        n_stop_words = int(choice[len("custom (") : -1])
    elif n_stop_words is None and choice in ("default", *STOP_LISTS):
        n_stop_words = len(load_stopwords(DEFAULT_STOP_LIST if choice == "default" else choice))
    if choice is None:
        return row.unmeasured(row.rule + "; settings not recorded", row.text("not_recorded"))
    if n_stop_words == 0:
        return row.row(row.text("empty"), Verdict("fails", row.rule))
    lists = {"default": row.text("default_list"), "spark": row.text("spark_list")}
    measured = row.text("measured", n=n_stop_words, what=lists.get(choice, choice))
    return row.unmeasured(row.rule + row.text("other", n=n_stop_words), measured)


def corpus_claims(
    report: NotebookReport,
    posts: DataFrame,
    table: Mapping[str, int],
    zipf: Mapping[str, Any],
    preprocess_report: Any,
) -> None:
    """Notebook 01: cleaning rules, heavy tail (Fig. 4), post length, vocabulary size."""
    ours = per_post(table)["words_per_post"]
    lo = per_post(S3TM_TABLE1["paper: April 2013"])["words_per_post"]
    hi = per_post(S3TM_TABLE1["paper: Sparse"])["words_per_post"]
    bad, numbers = token_check(posts)
    report.add_headline(
        **table,
        words_per_post=ours,
        zipf_exponent=zipf["exponent"],
        zipf_r2=zipf["r2"],
        rows_in=preprocess_report.rows_in,
        rows_out=preprocess_report.rows_out,
    )
    report.claim(**cleaning_row(bad, numbers))
    report.claim(**zipf_row(zipf))
    report.claim(**words_per_post_row(ours, lo, hi))
    report.claim(**vocabulary_row(table))
    report.claim(**word_pairs_row(table))
    settings = getattr(preprocess_report, "settings", {}) or {}
    report.claim(**stemming_row(settings))
    report.claim(**stop_words_row(settings))


def length_row(p_value: float, n: int) -> dict:
    """Row ``lengths``."""
    verdict = claims.at_least(p_value, LENGTH_TEST_LEVEL, what="χ² p-value")
    return ROWS["lengths"].graded(verdict, p=p_value, n=n)


def lda_row(n_topics: int, words_per_topic: int, alpha: float, beta: float) -> dict:
    """Row ``lda``; the note names this profile's topic count where it is not the paper's."""
    row = ROWS["lda"]
    settings = [n_topics == 100, words_per_topic == 5, alpha == 0.1, beta == 0.1]
    verdict = claims.share(sum(settings), len(settings), partly_at=0.25, rule=row.rule)
    note = row.note + ("" if n_topics == 100 else row.text("profile", n=n_topics))
    return row.graded(verdict, note, n=n_topics, words=words_per_topic, alpha=alpha, beta=beta)


def length_contrast_row(tweet_len: float, topic_len: float) -> dict:
    """Row ``length_contrast``."""
    verdict = claims.direction(tweet_len / topic_len, neutral=1.0, expected="above")
    return ROWS["length_contrast"].graded(verdict, tweet=tweet_len, topic=topic_len)


def popularity_row(tweet_rate: float, topic_rate: float, medians: tuple[float, float]) -> dict:
    """Row ``popularity``; the note says whether the medians (tweet, topic) agree with the
    means' order, and how far the topic mean lies above its median."""
    row, (tweet_med, topic_med) = ROWS["popularity"], medians
    note = row.text("medians", tweet=tweet_med, topic=topic_med)
    note += row.text("agree") if topic_med > tweet_med else row.text("disagree")
    if topic_med > 0 and topic_rate / topic_med >= 2:
        note += row.text("carried", times=topic_rate / topic_med)
    ratio = topic_rate / tweet_rate if tweet_rate else float("inf")
    verdict = claims.direction(ratio, neutral=1.0, expected="above")
    return row.graded(verdict, note, tweet=tweet_rate, topic=topic_rate)


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

    topic_len = subs["topic"]["words"].map(len)
    counts = topic_len.value_counts().reindex(range(1, len(expected_lengths) + 1), fill_value=0)
    observed = counts.to_numpy()
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
    medians = (tw["median match rate"], tp["median match rate"])
    report.claim(**popularity_row(tw["mean match rate"], tp["mean match rate"], medians))
