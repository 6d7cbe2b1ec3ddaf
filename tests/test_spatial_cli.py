"""``routelab spatial match`` on hand-made files: delivered pairs, bad records, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from routelab.cli import main

OBJECTS = """id,text,lat,lon,ts
o1,Flu vaccines available today,60.17,24.94,1
o2,cold weather,60.171,24.941,2
o3,,60.17,24.94,3
o4,flu shot,abc,24.94,4
o5,flu clinic,95,24.94,5
o1,dup id flu,60.17,24.94,6
o7,the flu is here,60.172,24.95,7
"""
QUERIES = """id,keywords,min_lat,min_lon,max_lat,max_lon,insert,delete
q1,flu AND vaccine,60.16,24.93,60.18,24.96,0,
q2,cold OR flu,60.16,24.93,60.18,24.96,0,5
q3,the,60.16,24.93,60.18,24.96,0,
q4,flu AND,60.16,24.93,60.18,24.96,0,
q5,flu,60.19,24.93,60.18,24.96,0,
"""


def _files(tmp_path: Path, objects: str = OBJECTS, queries: str = QUERIES) -> tuple[Path, Path]:
    o, q = tmp_path / "objects.csv", tmp_path / "queries.csv"
    o.write_text(objects)
    q.write_text(queries)
    return o, q


@pytest.mark.spark
def test_match_delivers_pairs_and_reports_bad_records(tmp_path: Path, spark, capsys) -> None:
    o, q = _files(tmp_path)
    out = tmp_path / "out"
    rc = main(
        [
            "spatial",
            "match",
            "--objects",
            str(o),
            "--queries",
            str(q),
            "--workers",
            "2",
            "--grid",
            "8",
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    pairs = pd.read_csv(out / "matches.csv")
    assert list(pairs.columns) == ["object_id", "query_id"]
    # q1 needs flu AND vaccine(s): o1; q2 (deleted at 5) gets o1, o2 but not o7 (ts 7)
    assert sorted(map(tuple, pairs.to_numpy().tolist())) == [
        ("o1", "q1"),
        ("o1", "q2"),
        ("o2", "q2"),
    ]
    bad = json.loads((out / "bad_records.json").read_text())
    assert bad["counts"] == {
        "bad_coordinates": 1,
        "coordinates_out_of_range": 1,
        "no_words": 1,
        "duplicate_id": 1,
        "stopword_keyword": 1,
        "bad_expression": 1,
        "bad_rectangle": 1,
    }
    assert "objects.csv:5" in capsys.readouterr().out
    workers = pd.read_csv(out / "workers.csv")
    assert len(workers) == 2 and workers.tuples.sum() >= 3
    # the counters mean what they say: o1 meets q1 and q2 and o2 meets q2 wherever they are
    # stored, so at least 3 candidate checks but far fewer than the postings, which grow
    # with the queries' cells; q2's deletion purges postings that were inserted
    assert 3 <= workers.candidate_checks.sum() < workers.postings_inserted.sum()
    assert workers.postings_inserted.sum() >= workers.peak_postings.max() > 0
    assert 0 < workers.purge_visits.sum() <= workers.postings_inserted.sum()
    # the output policy: refuse to overwrite
    assert (
        main(["spatial", "match", "--objects", str(o), "--queries", str(q), "--out", str(out)]) != 0
    )
    assert "add --overwrite" in capsys.readouterr().err


def test_errors_before_spark(tmp_path: Path, capsys) -> None:
    o, q = _files(tmp_path)
    assert (
        main(
            [
                "spatial",
                "match",
                "--objects",
                str(o),
                "--queries",
                str(q),
                "--algorithm",
                "nope",
                "--out",
                str(tmp_path / "x"),
            ]
        )
        != 0
    )
    assert "unknown partitioner 'nope'" in capsys.readouterr().err
    o2, q2 = _files(tmp_path / "..", "id,text\n1,a\n", QUERIES)
    assert (
        main(
            [
                "spatial",
                "match",
                "--objects",
                str(o2),
                "--queries",
                str(q2),
                "--out",
                str(tmp_path / "y"),
            ]
        )
        != 0
    )
    assert "missing column(s) lat, lon" in capsys.readouterr().err
    o3, q3 = _files(
        tmp_path, OBJECTS, "id,keywords,min_lat,min_lon,max_lat,max_lon\nq1,the,0,0,1,1\n"
    )
    assert (
        main(
            [
                "spatial",
                "match",
                "--objects",
                str(o3),
                "--queries",
                str(q3),
                "--out",
                str(tmp_path / "z"),
            ]
        )
        != 0
    )
    assert "nothing to match" in capsys.readouterr().err
