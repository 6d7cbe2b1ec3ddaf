"""CSV rows a naive reader gets wrong: a 1 MB row is read, not reported as
"wrong number of fields" with an empty excerpt; an unclosed quote is reported with its line
instead of silently swallowing every following row."""

from __future__ import annotations

import pytest

from routelab.datasets import loaders
from routelab.datasets.loaders import records


@pytest.fixture
def load(spark, tmp_path):
    def _load(text: str):
        path = tmp_path / "posts.csv"
        path.write_text(text)
        result = loaders.load_table(spark, str(path), text_col="text", id_col="id")
        return result.df.orderBy("post_id").toPandas(), result.report

    return _load


pytestmark = pytest.mark.spark


def test_a_one_megabyte_row_is_read(load):
    big = "word " * 200_000  # 1 MB of text in one field
    df, report = load(f"id,text\n1,{big}\n2,small\n")
    assert report.bad == 0
    assert sorted(df["post_id"]) == [1, 2] and df["text"].str.len().max() >= 1_000_000


def test_a_field_over_the_limit_is_reported_with_its_start(monkeypatch):
    monkeypatch.setattr(records, "MAX_FIELD_CHARS", 1000)
    inp = records._Input("file:/x.csv", "/x.csv", "x.csv", "x.csv", 0, "x")
    spec = records._TableSpec(text_col="text", id_col="id")
    content = ("id,text\n1," + "x" * 5000 + "\n2,fine\n").encode()
    outcomes = list(records._csv_rows(content, inp, spec, records._table_row, ","))
    # each outcome: (parsed columns..., reason, detail, excerpt), line
    bad = [(o, line) for o, line in outcomes if o[-3] == "row_too_long"]
    assert len(bad) == 1 and bad[0][1] == 2
    assert bad[0][0][-1].startswith("1,xxx")  # the excerpt is the row's start, not empty
    good = [o for o, _ in outcomes if o[-3] is None]
    assert [o[0] for o in good] == [2]  # row 2 kept


def test_an_unclosed_quote_is_reported_and_the_next_rows_kept(load):
    df, report = load('id,text\n1,"hello\n2,world\n3,again\n')
    assert report.counts["unterminated_quote"] == 1
    assert report.examples["unterminated_quote"][0].line == 2
    assert sorted(df["post_id"]) == [2, 3]


def test_a_legitimate_multiline_field_is_kept(load):
    df, report = load('id,text\n1,"two\nlines, with a comma"\n2,next\n')
    assert report.bad == 0
    assert sorted(df["post_id"]) == [1, 2]
    assert "two\nlines" in df.set_index("post_id").loc[1, "text"]


def test_a_replacement_character_is_text_but_a_bad_byte_is_not(spark, tmp_path):
    path = tmp_path / "posts.csv"
    path.write_bytes("id,text\n1,caf\ufffd open\n".encode() + b"2,caf\xe9 closed\n3,fine\n")
    result = loaders.load_table(spark, str(path), text_col="text", id_col="id")
    kept = sorted(result.df.toPandas()["post_id"])
    assert kept == [1, 3]
    assert result.report.counts == {"bad_encoding": 1}
    assert result.report.examples["bad_encoding"][0].line == 3


def test_json_array_keeps_replacement_characters(tmp_path):
    inp = records._Input("file:/x.json", "/x.json", "x.json", "x.json", 0, "x")
    content = ('[{"id": 1, "text": "caf\ufffd"},\n{"id": 2, "text": "x"}]').encode()
    outcomes = [o for o, _ in records._json_array_rows(content, inp)]
    assert [o[-3] for o in outcomes] == [None, None]
    bad = b'[{"id": 1, "text": "caf\xe9"}]'
    assert [o[-3] for o, _ in records._json_array_rows(bad, inp)] == ["bad_encoding"]
