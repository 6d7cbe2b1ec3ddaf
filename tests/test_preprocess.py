"""The Spark preprocessing pipeline (routelab.corpus.preprocess) and `routelab s3tm preprocess`."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pandas as pd  # at module level: pandas_udf resolves the "pd.Series" type hints
import pytest

from routelab.cli import main
from routelab.corpus.lab.bench import synthetic_texts
from routelab.corpus.preprocess import (
    PreprocessReport,
    preprocess,
    read_posts,
    read_report,
)
from routelab.corpus.text import clean_words
from routelab.datasets.loaders import load_table

pytestmark = pytest.mark.spark

TRICKY = [
    "RT @nasa: Launch at 5PM!! #Space https://t.co/x &amp; more",
    "“Don’t” panic… the FLU vaccines are WORKING 😀",
    "Check http://a.b/c @who $5 in 2013",
    "We’ll see the shell’s glow",
    "the and of",  # only stop words -> empty
    "@x https://t.co/y",  # only a mention and a link -> empty
    "Café naïve résumé ＨＥＬＬＯ",
    "running runs runner #running",
]


def _posts(spark):
    rows = [(i + 1, datetime(2013, 4, 1 + i), t, "s", None, None) for i, t in enumerate(TRICKY)]
    rows += [
        (3, datetime(2013, 3, 1), "an earlier duplicate of post 3 wins", "s", 1.0, 2.0),
        (3, None, "a duplicate without time loses", "s", None, None),
        (20, datetime(2013, 5, 1), None, "s", None, None),  # no text
        (21, datetime(2013, 5, 2), "   ", "s", None, None),  # blank text
        (22, datetime(2013, 5, 3), "flu", "s", None, None),  # one word only
    ]
    schema = "post_id long, ts timestamp, text string, source string, lat double, lon double"
    return spark.createDataFrame(rows, schema)


def test_spark_words_equal_clean_words_and_counts(spark) -> None:
    df = _posts(spark)
    res = preprocess(df, None, min_words=2, progress=False)
    got = {r["post_id"]: r for r in res.df.collect()}
    rep = res.report
    # the pure-Python rules, post by post
    expected = {}
    for pid, text in enumerate(TRICKY, start=1):
        if pid == 3:
            text = "an earlier duplicate of post 3 wins"
        words = clean_words(text)
        if len(words) >= 2:
            expected[pid] = words
    assert {pid: list(r["words"]) for pid, r in got.items()} == expected
    assert got[3]["ts"] == datetime(2013, 3, 1) and (got[3]["lat"], got[3]["lon"]) == (1.0, 2.0)
    assert rep.rows_in == 13
    assert rep.dropped == {
        "duplicate_post_id": 2,
        "missing_text": 2,
        "empty_after_cleaning": 2,
        "too_few_words": 1,
    }
    assert rep.rows_out == len(expected) == rep.rows_in - sum(rep.dropped.values())
    assert res.df.columns == ["post_id", "ts", "words", "source", "lat", "lon"]
    assert dict(res.df.dtypes)["words"] == "array<string>"
    res.unpersist()


def test_options_reach_the_workers(spark) -> None:
    df = spark.createDataFrame([(1, "The running dogs")], "post_id long, text string")
    plain = preprocess(df, None, stem=False, stopwords=frozenset(), progress=False)
    assert plain.df.first()["words"] == ["dogs", "running", "the"]
    assert "ts" in plain.df.columns and plain.df.first()["ts"] is None
    nltk = preprocess(
        spark.createDataFrame([(1, "dying")], "post_id long, text string"),
        None,
        stem_mode="nltk",
        progress=False,
    )
    assert nltk.df.first()["words"] == ["die"]
    with pytest.raises(Exception, match="post_id and text"):
        preprocess(spark.createDataFrame([(1,)], "id long"), None, progress=False)


def test_written_output_and_report(spark, tmp_path: Path) -> None:
    csv = tmp_path / "in.csv"
    csv.write_text(
        "id,text,when\n1,Flu shots work,2013-04-02\n2,,2013-04-01\n"
        "3,Vaccines: flu season,2013-04-01\n4,bad,yesterday\n"
    )
    loaded = load_table(spark, csv, id_col="id", time_col="when")
    res = preprocess(loaded, tmp_path / "out", progress=False)
    assert res.path == tmp_path / "out" / "posts.parquet"
    back = read_posts(spark, tmp_path / "out").orderBy("ts").toPandas()
    assert back["post_id"].tolist() == [3, 1]
    assert back["words"].map(list).tolist() == [
        ["flu", "season", "vaccin"],
        ["flu", "shot", "work"],
    ]
    report = read_report(tmp_path / "out")
    assert report.to_dict() == res.report.to_dict()
    assert report.loader is not None
    assert dict(report.loader.counts) == {"missing_text": 1, "bad_timestamp": 1}
    assert json.loads((tmp_path / "out" / "report.json").read_text())["rows_out"] == 2
    text = str(report)
    assert "missing_text" in text and "2 out" in text
    loaded.unpersist()


def test_report_roundtrip() -> None:
    rep = PreprocessReport(rows_in=5, rows_out=3, dropped={"duplicate_post_id": 2})
    assert PreprocessReport.from_dict(rep.to_dict()).to_dict() == rep.to_dict()


def test_synthetic_texts_seeded() -> None:
    assert synthetic_texts(50, seed=1) == synthetic_texts(50, seed=1)
    assert synthetic_texts(50, seed=1) != synthetic_texts(50, seed=2)
    assert sum(bool(clean_words(t)) for t in synthetic_texts(200)) > 190


def test_cli_preprocess(spark, tmp_path: Path, capsys) -> None:
    src = tmp_path / "t.jsonl"
    src.write_text('{"id": 1, "text": "Flu shots work"}\nnot json\n')
    code = main(
        [
            "s3tm",
            "preprocess",
            "--input",
            str(src),
            "--input-format",
            "twitter-json",
            "--out",
            str(tmp_path / "o"),
            "--no-progress",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "malformed_json" in out and "1 out" in out
    assert read_posts(spark, tmp_path / "o").count() == 1
    bad = json.loads((tmp_path / "o" / "bad_records.json").read_text())
    assert (
        bad["counts"]["malformed_json"] == 1 and bad["examples"]["malformed_json"][0]["line"] == 2
    )
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["counts"]["posts_out"] == 1 and summary["command"] == "routelab s3tm preprocess"
    code = main(
        [
            "s3tm",
            "preprocess",
            "--input",
            str(tmp_path / "nope.csv"),
            "--input-format",
            "csv",
            "--out",
            str(tmp_path / "o2"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "nope.csv: no such file or directory" in err


def _distinct_posts(spark):
    """TRICKY plus a missing, a blank and a one-word text, every post_id once."""
    rows = [(i + 1, datetime(2013, 4, 1 + i), t) for i, t in enumerate(TRICKY)]
    rows += [(20, None, None), (21, datetime(2013, 5, 2), "   "), (22, None, "flu")]
    return spark.createDataFrame(rows, "post_id long, ts timestamp, text string")


def test_written_in_one_evaluation_counted_as_the_cached_path(spark, tmp_path, monkeypatch):
    """With ``out`` and no duplicate ids every row is cleaned once, while it is written, and
    the tally observed on the way equals the cached path's (no ``out``) reason by reason."""
    from routelab.corpus import preprocess as pp

    cached = preprocess(_distinct_posts(spark), None, min_words=2, progress=False)
    expected = (cached.report.to_dict(), sorted(map(tuple, cached.df.collect())))
    cached.unpersist()
    cleaned = spark.sparkContext.accumulator(0)

    def counting_udf(stopwords, stem, stem_mode, stop_list):
        from pyspark.sql.functions import pandas_udf

        @pandas_udf("array<string>")
        def words(texts: pd.Series) -> pd.Series:
            from routelab.corpus.text import clean_many

            cleaned.add(len(texts))
            return pd.Series(clean_many(texts.tolist(), None, stem, stem_mode), index=texts.index)

        return words

    monkeypatch.setattr(pp, "_words_udf", counting_udf)
    res = preprocess(_distinct_posts(spark), tmp_path / "out", min_words=2, progress=False)
    assert cleaned.value == 11  # each of the 11 rows cleaned once
    got = res.report.to_dict()
    assert {k: got[k] for k in ("rows_in", "rows_out", "dropped")} == {
        k: expected[0][k] for k in ("rows_in", "rows_out", "dropped")
    }
    assert got["dropped"] == {
        "duplicate_post_id": 0, "missing_text": 2, "empty_after_cleaning": 2, "too_few_words": 1,
    }  # fmt: skip
    assert sorted(map(tuple, read_posts(spark, tmp_path / "out").collect())) == expected[1]


def test_duplicates_with_out_take_the_cached_path(spark, tmp_path) -> None:
    res = preprocess(_posts(spark), tmp_path / "out", min_words=2, progress=False)
    assert res.report.dropped["duplicate_post_id"] == 2
    assert res.report.rows_out == read_posts(spark, tmp_path / "out").count()
    assert res.report.rows_in - sum(res.report.dropped.values()) == res.report.rows_out
