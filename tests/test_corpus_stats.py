"""S3-TM Table 1 and Fig. 4 statistics (routelab.corpus.stats) and `routelab s3tm stats`."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from routelab.cli import main
from routelab.corpus.lab.figures import fig4_word_frequencies, fig4_zipf_fit, zipf_table
from routelab.corpus.stats import (
    fit_zipf,
    format_table1,
    table1,
    table1_of,
    word_frequencies,
)

SCHEMA = "post_id long, words array<string>"


def _df(spark, posts: list[list[str]]):
    return spark.createDataFrame(list(enumerate(posts)), SCHEMA)


@pytest.mark.spark
def test_table1_hand_computed(spark) -> None:
    # sets {a,b,c} {a,b} {c,d} {a}; the 2nd post is given unsorted with a repeat
    df = _df(spark, [["a", "b", "c"], ["b", "a", "b"], ["c", "d"], ["a"], []])
    # words a b c d; freq 3+2+2+1+0 = 8; pairs ab ac bc (post 1), ab (2), cd (3) -> 4 distinct
    assert table1(df) == {"posts": 5, "unique_words": 4, "total_word_freq": 8, "word_pairs": 4}
    freqs = word_frequencies(df)
    assert freqs.to_dict("list") == {
        "word": ["a", "b", "c", "d"],
        "freq": [3, 2, 2, 1],
        "rank": [1, 2, 3, 4],
    }


@pytest.mark.spark
def test_table1_agrees_with_python_on_random_posts(spark) -> None:
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(40)]
    posts = [rng.sample(vocab, rng.randint(0, 9)) for _ in range(120)]
    sets = [set(p) for p in posts]
    df = _df(spark, posts)
    assert table1(df) == table1_of(posts)  # the Spark version equals the plain-Python one
    freqs = word_frequencies(df)
    counts = pd.Series([w for s in sets for w in s]).value_counts()
    assert dict(zip(freqs["word"], freqs["freq"], strict=True)) == counts.to_dict()
    # rank-frequency is monotone, ranks are 1..n
    assert (np.diff(freqs["freq"]) <= 0).all()
    assert freqs["rank"].tolist() == list(range(1, len(freqs) + 1))


def test_fit_zipf_recovers_exponent() -> None:
    ranks = np.arange(1, 2001)
    freqs = pd.DataFrame(
        {"word": ranks.astype(str), "freq": np.round(1e6 * ranks**-1.2), "rank": ranks}
    )
    fit = fit_zipf(freqs)
    assert fit["exponent"] == pytest.approx(1.2, abs=0.01)
    assert fit["r2"] > 0.999
    part = fit_zipf(freqs, min_rank=10, max_rank=100)
    assert (part["min_rank"], part["max_rank"], part["points"]) == (10, 100, 91)
    with pytest.raises(ValueError, match="at least 2"):
        fit_zipf(freqs.head(1))


def test_fig4_word_frequencies() -> None:
    ranks = np.arange(1, 10_001)
    freqs = pd.DataFrame({"word": ranks.astype(str), "freq": 10_001 - ranks, "rank": ranks})
    fig = fig4_word_frequencies(freqs, "corpus A")
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert fig.layout.title.text and fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    (trace,) = fig.data
    assert trace.name == "corpus A"
    assert len(trace.x) <= 2000 and trace.x[0] == 1 and trace.x[-1] == 10_000
    assert (np.diff(trace.y) <= 0).all()
    fig = fig4_word_frequencies(freqs.head(10), "corpus B", fig=fig)
    assert [t.name for t in fig.data] == ["corpus A", "corpus B"]
    # every decade labelled, no bare minor labels
    assert fig.layout.xaxis.dtick == 1 and fig.layout.yaxis.exponentformat == "power"


def test_zipf_fit_line_and_table() -> None:
    ranks = np.arange(1, 1001)
    freqs = pd.DataFrame({"word": ranks.astype(str), "freq": np.round(1e5 / ranks), "rank": ranks})
    fit = fit_zipf(freqs, min_rank=10, max_rank=500)
    fig = fig4_zipf_fit(fig4_word_frequencies(freqs, "A"), fit)
    line = fig.data[-1]
    assert line.line.dash == "dash" and "s = 1.00" in line.name
    # the line spans the fitted ranks only and follows 1e5 / rank
    assert line.x[0] == pytest.approx(10) and line.x[-1] == pytest.approx(500)
    assert line.y[0] == pytest.approx(1e4, rel=0.01) and line.y[-1] == pytest.approx(200, rel=0.01)
    table = zipf_table(fit)
    assert list(table.columns) == [
        "Zipf exponent s",
        "R² (log-log)",
        "ranks fitted",
        "words fitted",
    ]
    assert table.iloc[0]["ranks fitted"] == "10–500" and table.iloc[0]["words fitted"] == "491"


def test_format_table1() -> None:
    text = format_table1(
        {"x": {"posts": 1234, "unique_words": 5, "total_word_freq": 6, "word_pairs": 7}}
    )
    assert "# of tweets" in text and "1,234" in text and "# of word pairs" in text


@pytest.mark.spark
def test_cli_stats(spark, tmp_path: Path, capsys) -> None:
    out = tmp_path / "words" / "posts.parquet"
    _df(spark, [["a", "b", "c"], ["a", "b"], ["c", "d"], ["a"]]).write.parquet(str(out))
    argv = ["s3tm", "stats", "--posts", str(tmp_path / "words"), "--out", str(tmp_path / "s")]
    code = main([*argv, "--format", "json"])
    printed = capsys.readouterr().out
    assert code == 0 and "# of word pairs" in printed
    saved = json.loads((tmp_path / "s" / "summary.json").read_text())
    assert saved["table1"][str(tmp_path / "words")]["word_pairs"] == 4
    (row,) = json.loads((tmp_path / "s" / "results.json").read_text())
    assert row["posts"] == 4 and row["word_pairs"] == 4
    nothing = ["s3tm", "stats", "--posts", str(tmp_path / "nothing"), "--out", str(tmp_path / "n")]
    assert main(nothing) == 2


def test_table1_of_the_notebooks_worked_example() -> None:
    """01's three tweets after cleaning: 5, 6 and 10 distinct words, none shared."""
    from routelab.corpus.text import clean_many

    tweets = [
        "RT @WHO: Ebola outbreak in #WestAfrica: 2014 update https://t.co/abc123 &amp; more!!",
        "Don't miss the $5 flu shots at CVS today :) 😷 http://bit.ly/x",
        "OBAMA signs health-care bill... 'historic' day for 32 million Americans",
    ]
    sets = clean_many(tweets)
    assert [len(s) for s in sets] == [5, 6, 10]
    # pairs: 5*4/2 + 6*5/2 + 10*9/2 = 10 + 15 + 45
    assert table1_of(sets) == {
        "posts": 3,
        "unique_words": 21,
        "total_word_freq": 21,
        "word_pairs": 70,
    }
    assert table1_of([["a", "b"], ["b", "a", "c"]]) == {
        "posts": 2,
        "unique_words": 3,
        "total_word_freq": 5,
        "word_pairs": 3,
    }
