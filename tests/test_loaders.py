"""Loaders for users' data (routelab.datasets.loaders) and the bad-record report."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest

from routelab.badrecords import BadRecordReport
from routelab.datasets.loaders import (
    RecordError,
    decode_line,
    load_key_stream,
    load_table,
    load_twitter_json,
    parse_coordinates,
    parse_key,
    parse_post_id,
    parse_time,
    stable_id,
    tweets_from_json,
)
from routelab.errors import BadInputError
from routelab.hashing import string_hash


def _us(*args: int) -> int:
    return int(datetime(*args, tzinfo=UTC).timestamp() * 1_000_000)


# ------------------------------------------------------------------ value parsing (no Spark)


def test_parse_time_formats() -> None:
    # Twitter's format, with the offset applied
    assert parse_time("Wed Oct 10 20:19:24 +0000 2018") == _us(2018, 10, 10, 20, 19, 24)
    assert parse_time("Wed Oct 10 22:19:24 +0200 2018") == _us(2018, 10, 10, 20, 19, 24)
    # ISO 8601 (v2), naive = UTC, dates
    assert parse_time("2019-06-04T23:12:08.000Z") == _us(2019, 6, 4, 23, 12, 8)
    assert parse_time("2019-06-04 23:12:08") == _us(2019, 6, 4, 23, 12, 8)
    assert parse_time("2019-06-04") == _us(2019, 6, 4)
    # epochs: automatic seconds / milliseconds by magnitude, or forced
    assert parse_time(1539202764) == _us(2018, 10, 10, 20, 19, 24)
    assert parse_time("1539202764000") == _us(2018, 10, 10, 20, 19, 24)
    assert parse_time("1539202764", "epoch_ms") == 1539202764 * 1000
    assert parse_time(datetime(2020, 1, 1, tzinfo=UTC)) == _us(2020, 1, 1)
    assert parse_time("04/06/2019 23:12", "%d/%m/%Y %H:%M") == _us(2019, 6, 4, 23, 12)
    # missing is not bad
    for missing in (None, "", "  ", float("nan")):
        assert parse_time(missing) is None


@pytest.mark.parametrize(
    "value", ["yesterday", "2019-13-45", "Wed Foo 10 20:19:24 +0000 2018", "1e400", True]
)
def test_parse_time_bad(value: object) -> None:
    with pytest.raises(RecordError) as err:
        parse_time(value)
    assert err.value.reason == "bad_timestamp"


def test_parse_coordinates() -> None:
    assert parse_coordinates("40.7", -73.9) == (40.7, -73.9)
    assert parse_coordinates(None, "") == (None, None)
    for lat, lon in [(91, 0), (0, 180.5), ("x", 1), (1, None), (True, 1)]:
        with pytest.raises(RecordError) as err:
            parse_coordinates(lat, lon)
        assert err.value.reason == "bad_coordinates"


def test_parse_post_id_and_key() -> None:
    assert parse_post_id(1050118621198921728, "f:1") == 1050118621198921728
    assert parse_post_id("1050118621198921728", "f:1") == 1050118621198921728
    assert parse_post_id(None, "f.json:3") == string_hash("f.json:3") & ((1 << 63) - 1)
    assert parse_post_id("abc", "f:1") == stable_id("abc")
    assert parse_post_id(str(1 << 64), "f:1") == stable_id(str(1 << 64))  # beyond int64
    assert 0 <= stable_id("anything") < (1 << 63)
    assert parse_key(" 42 ") == (42, "42")
    assert parse_key("JFK") == (stable_id("JFK"), "JFK")
    for missing in (None, "", "   ", float("nan")):
        with pytest.raises(RecordError, match="missing_key"):
            parse_key(missing)


def test_decode_line() -> None:
    assert decode_line("\ufeffcafé".encode()) == "café"
    with pytest.raises(RecordError, match="bad_encoding"):
        decode_line(b"caf\xe9")
    # U+FFFD written as valid UTF-8 is a character, not a bad byte
    assert decode_line("a\ufffdb".encode()) == "a\ufffdb"


def test_tweets_from_json_v1_v2_and_notices() -> None:
    v1 = {
        "id": 7,
        "text": "short",
        "extended_tweet": {"full_text": "long text"},
        "created_at": "Wed Oct 10 20:19:24 +0000 2018",
        "coordinates": {"type": "Point", "coordinates": [-73.9, 40.7]},
    }
    assert tweets_from_json(v1, "f:1") == [
        (7, _us(2018, 10, 10, 20, 19, 24), "long text", 40.7, -73.9)
    ]
    v1_full = {"id_str": "8", "full_text": "full", "text": "trunc", "timestamp_ms": "1000"}
    assert tweets_from_json(v1_full, "f:2") == [(8, 1_000_000, "full", None, None)]
    v2 = {
        "data": [
            {"id": "9", "text": "a", "geo": {"coordinates": {"coordinates": [1, 2]}}},
            {"id": "10"},
        ]
    }
    first, second = tweets_from_json(v2, "f:3")
    assert first == (9, None, "a", 2.0, 1.0)
    assert isinstance(second, RecordError) and second.reason == "missing_text"
    no_id = tweets_from_json({"text": "x"}, "f:4")
    assert no_id == [(stable_id("f:4"), None, "x", None, None)]
    for notice in ({"delete": {"status": {}}}, {"limit": {"track": 3}}, 5, "s", {"foo": 1}):
        (outcome,) = tweets_from_json(notice, "f:5")
        assert isinstance(outcome, RecordError) and outcome.reason == "not_a_post"


# ------------------------------------------------------------------ report


def test_report_keeps_first_five_examples_and_merges() -> None:
    a = BadRecordReport(records=10)
    for line in (9, 3, 7, 1, 5, 2, 8):
        a.add("malformed_json", "f", line, "x" * 200)
    assert a.counts["malformed_json"] == 7
    assert [e.line for e in a.examples["malformed_json"]] == [1, 2, 3, 5, 7]
    assert all(len(e.excerpt) <= 60 for e in a.examples["malformed_json"])
    b = BadRecordReport(records=5)
    b.add("bad_encoding", "g", 4, b"\xff\xfe")
    a.merge(b)
    assert (a.records, a.bad, a.good) == (15, 8, 7)
    again = BadRecordReport.from_dict(json.loads(json.dumps(a.to_dict())))
    assert again.to_dict() == a.to_dict()
    text = str(a)
    assert "malformed_json" in text and "g:4" in text and "15 records read" in text


# ------------------------------------------------------------------ Spark loaders

TWEETS = [
    '{"id": 1, "text": "hello", "created_at": "Wed Oct 10 20:19:24 +0000 2018", '
    '"coordinates": {"type": "Point", "coordinates": [-73.9, 40.7]}}',  # 1 ok
    '{"id": 2, "text": "trunc", "extended_tweet": {"full_text": "full text"}}',  # 2 ok
    "not json {",  # 3 malformed_json
    '{"id": 4}',  # 4 missing_text
    "",  # 5 blank_line
    '{"delete": {"status": {"id": 5}}}',  # 6 not_a_post
    '{"data": {"id": "6", "text": "v2", "created_at": "2019-06-04T23:12:08.000Z"}}',  # 7 ok
    '{"data": [{"id": "7", "text": "a"}, {"id": "8"}]}',  # 8 ok + missing_text
    '{"id": 9, "text": "t", "created_at": "yesterday"}',  # 9 bad_timestamp
    '{"id": 10, "text": "t", "coordinates": {"coordinates": [200, 10]}}',  # 10 bad_coordinates
]


def _write_tweets(path: Path) -> None:
    data = "\n".join(TWEETS).encode() + b'\n{"id": 11, "text": "caf\xe9"}\n'  # 11 bad_encoding
    path.write_bytes(data)


@pytest.mark.spark
def test_twitter_json_lines_counts_and_lines(spark, tmp_path: Path) -> None:
    _write_tweets(tmp_path / "t.jsonl")
    (tmp_path / "a.json").write_text(
        '[\n {"id": 21, "full_text": "arr one"},\n {"id": 22,\n  "text": "arr two"},\n'
        ' {"id": 23}\n]\n'
    )
    (tmp_path / "_SUCCESS").write_text("")  # hidden: skipped
    res = load_twitter_json(spark, tmp_path)
    got = res.df.orderBy("file", "line").toPandas()
    assert got["post_id"].tolist() == [21, 22, 1, 2, 6, 7]
    assert got["line"].tolist() == [2, 3, 1, 2, 7, 8]
    assert got["text"].tolist() == ["arr one", "arr two", "hello", "full text", "v2", "a"]
    assert got["file"].tolist() == [str(tmp_path / "a.json")] * 2 + [str(tmp_path / "t.jsonl")] * 4
    assert got["source"].tolist() == ["a.json"] * 2 + ["t.jsonl"] * 4
    hello = got[got.post_id == 1].iloc[0]
    assert (hello.lat, hello.lon) == (40.7, -73.9)
    assert hello.ts == pd.Timestamp("2018-10-10 20:19:24")
    rep = res.report
    assert dict(rep.counts) == {
        "malformed_json": 1,
        "missing_text": 3,
        "blank_line": 1,
        "not_a_post": 1,
        "bad_timestamp": 1,
        "bad_coordinates": 1,
        "bad_encoding": 1,
    }
    assert (rep.records, rep.good) == (15, 6)
    lines = {r: [(Path(e.file).name, e.line) for e in ex] for r, ex in rep.examples.items()}
    assert lines["missing_text"] == [("a.json", 5), ("t.jsonl", 4), ("t.jsonl", 8)]
    assert lines["malformed_json"] == [("t.jsonl", 3)]
    assert lines["bad_encoding"] == [("t.jsonl", 11)]
    assert lines["bad_coordinates"] == [("t.jsonl", 10)]
    assert rep.examples["malformed_json"][0].excerpt == "not json {"
    res.unpersist()


@pytest.mark.spark
def test_line_numbers_exact_across_splits(spark, tmp_path: Path) -> None:
    """Force many splits per file; every record's line must still be exact."""
    path = tmp_path / "big.jsonl"
    rows = []
    for i in range(1, 2001):
        rows.append(
            "garbage"
            if i % 301 == 0
            else json.dumps({"id": i, "text": f"line {i} " + "x" * (i % 37)})
        )
    path.write_text("\n".join(rows) + "\n")
    (tmp_path / "small.jsonl.gz").write_bytes(gzip.compress(b'{"id": 1, "text": "gz"}\n'))
    old = {
        k: spark.conf.get(k)
        for k in ("spark.sql.files.maxPartitionBytes", "spark.sql.files.openCostInBytes")
    }
    spark.conf.set("spark.sql.files.maxPartitionBytes", "24k")
    spark.conf.set("spark.sql.files.openCostInBytes", "4k")
    try:
        res = load_twitter_json(spark, tmp_path)
        assert res.df.rdd.getNumPartitions() >= 3
        got = res.df.filter(res.df.source == "big.jsonl").select("post_id", "line").toPandas()
    finally:
        for k, v in old.items():
            spark.conf.set(k, v)
    assert len(got) == 2000 - 6
    assert (got["post_id"] == got["line"]).all()
    assert res.report.counts == {"malformed_json": 6}
    # the first five of six, although they lie in different splits
    assert [e.line for e in res.report.examples["malformed_json"]] == [301, 602, 903, 1204, 1505]
    assert res.df.filter(res.df.text == "gz").count() == 1
    res.unpersist()


CSV = (
    "id,text,when,lat,lon\n"  # line 1: header
    '1,"hello, world",2018-10-10T20:19:24Z,40.7,-73.9\n'  # 2 ok
    '2,"multi\nline text",1539202764,,\n'  # 3-4 ok (quoted newline)
    "3,,2018-10-10,,\n"  # 5 missing_text
    "4,bad time,not a time,,\n"  # 6 bad_timestamp
    "5,bad lat,,95,10\n"  # 7 bad_coordinates
    "6,half coords,,10,\n"  # 8 bad_coordinates
    "7,too,many,fields,1,2\n"  # 9 malformed_row
    "\n"  # 10 blank_line
)


@pytest.mark.spark
def test_csv_table(spark, tmp_path: Path) -> None:
    path = tmp_path / "posts.csv"
    path.write_bytes(CSV.encode() + b"8,caf\xe9,,,\n" + b"abc,no int id,,,\n")  # 11, 12
    res = load_table(
        spark, path, text_col="text", time_col="when", lat_col="lat", lon_col="lon", id_col="id"
    )
    got = res.df.orderBy("line").toPandas()
    assert got["line"].tolist() == [2, 3, 12]
    assert got["post_id"].tolist() == [1, 2, stable_id("abc")]
    assert got["text"].tolist() == ["hello, world", "multi\nline text", "no int id"]
    assert got["ts"].tolist()[:2] == [pd.Timestamp("2018-10-10 20:19:24")] * 2
    assert pd.isna(got["ts"].iloc[2]) and pd.isna(got["lat"].iloc[1])
    assert dict(res.report.counts) == {
        "missing_text": 1,
        "bad_timestamp": 1,
        "bad_coordinates": 2,
        "malformed_row": 1,
        "blank_line": 1,
        "bad_encoding": 1,
    }
    lines = {r: [e.line for e in ex] for r, ex in res.report.examples.items()}
    assert lines == {
        "missing_text": [5],
        "bad_timestamp": [6],
        "bad_coordinates": [7, 8],
        "malformed_row": [9],
        "blank_line": [10],
        "bad_encoding": [11],
    }
    res.unpersist()


@pytest.mark.spark
def test_csv_without_id_hashes_file_and_line(spark, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "p.csv").write_text("text\nfirst\nsecond\n")
    res = load_table(spark, tmp_path / "d")
    got = res.df.orderBy("line").toPandas()
    assert got["post_id"].tolist() == [stable_id("p.csv:2"), stable_id("p.csv:3")]
    res.unpersist()


@pytest.mark.spark
def test_parquet_table_row_numbers_and_big_ids(spark, tmp_path: Path) -> None:
    path = tmp_path / "posts.parquet"
    big = 1050118621198921729  # > 2**53: must survive exactly
    frame = pd.DataFrame(
        {
            "tid": pd.array([big, None, 3], dtype="Int64"),
            "body": ["one", "two", None],
            "at": pd.to_datetime(["2020-01-01 00:00:01", None, "2020-01-03 00:00:00"], utc=True),
        }
    )
    frame.to_parquet(path, coerce_timestamps="us")
    res = load_table(spark, path, text_col="body", time_col="at", id_col="tid")
    got = res.df.orderBy("line").toPandas()
    assert got["post_id"].tolist() == [big, stable_id("posts.parquet:2")]
    assert got["line"].tolist() == [1, 2]
    assert got["ts"].iloc[0] == pd.Timestamp("2020-01-01 00:00:01")
    assert res.report.counts == {"missing_text": 1}
    assert res.report.examples["missing_text"][0].line == 3
    res.unpersist()


@pytest.mark.spark
def test_key_streams(spark, tmp_path: Path) -> None:
    text = tmp_path / "keys.txt"
    text.write_bytes(b"42\nJFK\n\n  \n7\nb\xffad\n")
    res = load_key_stream(spark, text)
    got = res.df.orderBy("line").toPandas()
    assert got["key"].tolist() == [42, stable_id("JFK"), 7]
    assert got["key_name"].tolist() == ["42", "JFK", "7"]
    assert got["line"].tolist() == [1, 2, 5]
    assert res.report.counts == {"missing_key": 2, "bad_encoding": 1}
    assert [e.line for e in res.report.examples["missing_key"]] == [3, 4]
    res.unpersist()

    table = tmp_path / "keys.csv"
    table.write_text("origin,date\nJFK,2001-01-01 00:05\n,2001-01-01 00:06\nLAX,nope\n")
    res = load_key_stream(spark, table, key_col="origin", time_col="date")
    got = res.df.toPandas()
    assert got["key_name"].tolist() == ["JFK"]
    assert got["ts"].iloc[0] == pd.Timestamp("2001-01-01 00:05")
    assert res.report.counts == {"missing_key": 1, "bad_timestamp": 1}
    res.unpersist()


@pytest.mark.spark
def test_loader_options_tsv_glob_and_time_format(spark, tmp_path: Path) -> None:
    """Options a user sets: a .tsv file (tab-separated, commas inside fields), a glob over
    several files (each row keeps its own file and line), and an explicit time_format that
    reads day-first dates the automatic parser would reject."""
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.tsv").write_text("text\tat\nflu, cold\t04/06/2019 23:12\nsecond\t05/06/2019 00:00\n")
    (d / "b.tsv").write_text("text\tat\nthird\t31/12/2019 08:00\nbad\t2019-06-04\n")
    (d / "skip.csv").write_text("text,at\nnot matched by the glob,x\n")
    res = load_table(spark, str(d / "*.tsv"), time_col="at", time_format="%d/%m/%Y %H:%M")
    got = res.df.orderBy("source", "line").toPandas()
    assert got["text"].tolist() == ["flu, cold", "second", "third"]
    assert got["source"].str.endswith(("a.tsv", "a.tsv", "b.tsv")).all()
    assert got["line"].tolist() == [2, 3, 2]
    assert got["ts"].tolist() == [
        pd.Timestamp("2019-06-04 23:12"),
        pd.Timestamp("2019-06-05"),
        pd.Timestamp("2019-12-31 08:00"),
    ]
    # the ISO date does not match the explicit format: counted, not guessed
    assert res.report.counts == {"bad_timestamp": 1}
    assert res.report.examples["bad_timestamp"][0].line == 3
    res.unpersist()
    keys = tmp_path / "keys.tsv"
    keys.write_text("origin\tms\nJFK\t1539202764000\nLAX\t1539202765000\n")
    res = load_key_stream(spark, keys, key_col="origin", time_col="ms", time_format="epoch_ms")
    got = res.df.orderBy("line").toPandas()
    assert got["key_name"].tolist() == ["JFK", "LAX"]
    assert got["ts"].tolist() == [
        pd.Timestamp("2018-10-10 20:19:24"),
        pd.Timestamp("2018-10-10 20:19:25"),
    ]
    res.unpersist()
    with pytest.raises(BadInputError, match="neither one of"):
        load_table(spark, str(d / "*.tsv"), time_col="at", time_format="dd/mm/yyyy")


@pytest.mark.spark
def test_unreadable_inputs_raise_clear_errors(spark, tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="no such file or directory"):
        load_twitter_json(spark, tmp_path / "missing.jsonl")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / ".hidden").write_text("x")
    with pytest.raises(BadInputError, match="contains no data files"):
        load_twitter_json(spark, tmp_path / "empty")
    csv_path = tmp_path / "p.csv"
    csv_path.write_text("body\nx\n")
    with pytest.raises(BadInputError, match=r"p\.csv: no column\(s\) \['text'\]"):
        load_table(spark, csv_path)
    pq = tmp_path / "p.parquet"
    pd.DataFrame({"body": ["x"]}).to_parquet(pq)
    with pytest.raises(BadInputError, match=r"no column\(s\) \['text'\]"):
        load_table(spark, pq)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"this is not parquet")
    with pytest.raises(BadInputError, match="broken.parquet: cannot be read"):
        load_table(spark, broken)
    nanos = tmp_path / "nanos.parquet"
    pd.DataFrame({"text": ["x"], "at": pd.to_datetime(["2020-01-01"], utc=True)}).to_parquet(
        nanos
    )  # pandas writes nanoseconds by default
    with pytest.raises(BadInputError, match="nanos.parquet: cannot be read.*coerce_timestamps"):
        load_table(spark, nanos, time_col="at")
    with pytest.raises(BadInputError, match="cannot tell the format"):
        load_table(spark, _odd(tmp_path))
    with pytest.raises(BadInputError, match="lat_col and lon_col"):
        load_table(spark, csv_path, lat_col="lat")


def _odd(tmp_path: Path) -> Path:
    path = tmp_path / "posts.xlsx"
    path.write_text("x")
    return path
