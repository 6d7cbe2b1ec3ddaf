"""``routelab filtering export`` and ``match``: the neutral files round-trip, a user's own
files with integers, floats and strings match like the oracle, bad rows are counted by
reason with file:line, good rows are kept."""

from __future__ import annotations

import csv
import json

import pytest
from command_runner import run_command

from routelab.filtering.io import float_key, read_workload
from routelab.filtering.model import match_pairs
from routelab.filtering.oracle import oracle_match


def _read_pairs(path):
    with path.open() as fh:
        return {(int(r["event_id"]), int(r["subscription_id"])) for r in csv.DictReader(fh)}


def test_float_key_preserves_order_and_equality():
    xs = [-1e9, -2.5, -0.0, 0.0, 1e-9, 2.5, 3.0, 1e18]
    keys = [float_key(x) for x in xs]
    assert keys == sorted(keys)
    assert float_key(2.5) == float_key(2.5) and float_key(2.5) != float_key(2.6)


@pytest.mark.spark
def test_export_then_match_reproduces_the_expected_matches(tmp_path, spark):
    out = tmp_path / "w0"
    assert (
        run_command(
            "filtering",
            [
                "filtering",
                "export",
                "--workload",
                "W0",
                "--n",
                "3000",
                "--events",
                "50",
                "--out",
                str(out),
            ],
        )
        == 0
    )
    assert (
        run_command(
            "filtering", ["filtering", "export", "--workload", "W0", "--n", "10", "--out", str(out)]
        )
        == 2
    )  # refuses to overwrite
    res = tmp_path / "res"
    assert (
        run_command(
            "filtering",
            [
                "filtering",
                "match",
                "--subs",
                str(out / "subs.csv"),
                "--events",
                str(out / "events.csv"),
                "--algorithm",
                "static",
                "--out",
                str(res),
            ],
        )
        == 0
    )
    assert _read_pairs(res / "matches.csv") == _read_pairs(out / "matches.csv")
    summary = json.loads((res / "summary.json").read_text())
    assert summary["counts"]["subscriptions"] == 3000 and summary["algorithm"] == "static"
    assert json.loads((res / "bad_records.json").read_text())["bad"] == 0
    workers = list(csv.DictReader((res / "workers.csv").open()))
    assert [int(w["worker"]) for w in workers] == [0, 1]
    assert sum(int(w["subscriptions"]) for w in workers) == 3000


SUBS = """sub_id,attr,op,value
1,carrier,=,UA
1,delay,>=,60.5
2,carrier,!=,AA
2,dest,=,LAX
3,carrier,<,UA
4,dest,~,SFO
x5,dest,=,SFO
6,distance,<=,2500
6,delay,<,0

7,distance
"""
EVENTS = """event_id,attr,value
10,carrier,UA
10,delay,75
10,dest,LAX
10,distance,2475
11,carrier,AA
11,delay,-3.5
11,dest,LAX
11,distance,2475
11,dest,SFO
12,carrier,DL
12,dest,LAX
"""


@pytest.mark.spark
def test_user_files_mixed_values_and_bad_rows(tmp_path, spark, capsys):
    (tmp_path / "subs.csv").write_text(SUBS)
    (tmp_path / "events.csv").write_text(EVENTS)
    w = read_workload(tmp_path / "subs.csv", tmp_path / "events.csv")
    r = w.report
    assert dict(r.counts) == {
        "non_numeric_value": 1,  # sub 3: carrier < UA, carrier is categorical
        "unknown_operator": 1,  # sub 4: ~
        "bad_id": 1,  # x5
        "blank_line": 1,
        "malformed_row": 1,  # 7,distance
        "repeated_attribute": 1,  # event 11 gives dest twice
    }
    assert r.examples["unknown_operator"][0].line == 7
    assert r.examples["repeated_attribute"][0].line == 10
    assert sorted(w.subs.ids.tolist()) == [1, 2, 6]
    ptr, idx = oracle_match(w.subs, w.events)
    truth = match_pairs(ptr, w.subs.ids[idx])
    events = w.events.ids
    truth = {(int(events[e]), int(s)) for e, s in truth}
    # by hand: 10 (UA, delay 75 >= 60.5, LAX) matches 1 and 2 (not AA, LAX); 11 (AA,
    # delay -3.5, LAX, 2475) matches 6 (2475 <= 2500, -3.5 < 0); 12 (DL, LAX) matches 2
    assert truth == {(10, 1), (10, 2), (11, 6), (12, 2)}
    out = tmp_path / "out"
    code = run_command(
        "filtering",
        [
            "filtering",
            "match",
            "--subs",
            str(tmp_path / "subs.csv"),
            "--events",
            str(tmp_path / "events.csv"),
            "--out",
            str(out),
        ],
    )
    assert code == 0
    assert _read_pairs(out / "matches.csv") == truth
    printed = capsys.readouterr().out
    assert "unknown_operator" in printed and "4 matches" in printed


def test_unusable_files_are_clear_errors(tmp_path):
    (tmp_path / "subs.csv").write_text("sub,attr,op,value\n1,a,=,1\n")
    (tmp_path / "events.csv").write_text("event_id,attr,value\n")
    args = [
        "filtering",
        "match",
        "--subs",
        str(tmp_path / "subs.csv"),
        "--events",
        str(tmp_path / "events.csv"),
        "--out",
        str(tmp_path / "o"),
    ]
    assert run_command("filtering", args) == 2  # wrong header
    (tmp_path / "subs.csv").write_text("sub_id,attr,op,value\n1,a,=,1\n")
    assert run_command("filtering", args) == 2  # no events
    assert (
        run_command(
            "filtering",
            [
                "filtering",
                "match",
                "--subs",
                str(tmp_path / "nope.csv"),
                "--events",
                str(tmp_path / "events.csv"),
                "--out",
                str(tmp_path / "o"),
            ],
        )
        == 2
    )
    assert (
        run_command(
            "filtering",
            [*args[:-2], "--algorithm", "magic", "--out", str(tmp_path / "o")],
        )
        == 2
    )


TYPO_SUBS = """sub_id,attr,op,value
1,price,<,100
2,price,>=,100
3,carrier,=,UA
3,price,<=,50
4,price,<,1O0
4,carrier,=,AA
"""
TYPO_EVENTS = """event_id,attr,value
1,price,20
1,carrier,UA
2,price,cheap
2,carrier,AA
3,price,150.5
"""


def test_one_typo_never_sinks_an_attribute(tmp_path):
    """A text value on a numeric attribute is the bad row, named by file:line; every other
    row is kept (issue: one `2,price,cheap` used to turn price into text and drop every
    subscription on it)."""
    (tmp_path / "subs.csv").write_text(TYPO_SUBS)
    (tmp_path / "events.csv").write_text(TYPO_EVENTS)
    w = read_workload(tmp_path / "subs.csv", tmp_path / "events.csv")
    r = w.report
    assert dict(r.counts) == {"non_numeric_value": 2, "subscription_dropped": 1}
    where = sorted((e.file.rsplit("/", 1)[-1], e.line) for e in r.examples["non_numeric_value"])
    assert where == [("events.csv", 4), ("subs.csv", 6)]  # `2,price,cheap`, `4,price,<,1O0`
    assert sorted(w.subs.ids.tolist()) == [1, 2, 3]  # subscription 4 (the typo) alone dropped
    ptr, idx = oracle_match(w.subs, w.events)
    pairs = {(int(w.events.ids[e]), int(s)) for e, s in match_pairs(ptr, w.subs.ids[idx])}
    # event 1 (20, UA): 1 and 3; event 2 (price missing, AA): none; event 3 (150.5): 2
    assert pairs == {(1, 1), (1, 3), (3, 2)}
    text = str(r)
    assert "events.csv:4" in text and "a value that does not fit" in text


def test_declared_types_win_over_the_majority(tmp_path):
    from routelab.errors import BadInputError
    from routelab.filtering.io import parse_types

    (tmp_path / "subs.csv").write_text("sub_id,attr,op,value\n1,code,=,7\n2,code,=,x7\n")
    (tmp_path / "events.csv").write_text("event_id,attr,value\n1,code,7\n2,code,8\n")
    # 3 of 4 values are numbers: code is numeric and x7 (subs.csv line 3) the bad row
    inferred = read_workload(tmp_path / "subs.csv", tmp_path / "events.csv")
    assert dict(inferred.report.counts) == {"non_numeric_value": 1}
    assert inferred.report.examples["non_numeric_value"][0].line == 3
    declared = read_workload(tmp_path / "subs.csv", tmp_path / "events.csv", {"code": "str"})
    assert declared.report.bad == 0 and sorted(declared.subs.ids.tolist()) == [1, 2]
    (tmp_path / "events.csv").write_text("event_id,attr,value\n1,code,7\n2,code,x8\n")
    tie = read_workload(tmp_path / "subs.csv", tmp_path / "events.csv")  # 2 of 4: text
    assert tie.report.bad == 0
    as_int = read_workload(tmp_path / "subs.csv", tmp_path / "events.csv", {"code": "int"})
    assert as_int.report.counts["non_numeric_value"] == 2
    assert parse_types("a=int, b=str") == {"a": "int", "b": "str"}
    with pytest.raises(BadInputError, match="attr=int"):
        parse_types("a")
    with pytest.raises(BadInputError, match="number or text \\(or int, float, str\\)"):
        read_workload(tmp_path / "subs.csv", tmp_path / "events.csv", {"code": "bool"})
    with pytest.raises(BadInputError, match="no row uses"):
        read_workload(tmp_path / "subs.csv", tmp_path / "events.csv", {"nope": "int"})


def test_every_reason_a_reader_gives_has_a_meaning():
    """The report's 'meaning' column is never blank: every reason passed to
    ``BadRecordReport.add`` anywhere in routelab is in ``REASONS``."""
    import re
    from pathlib import Path

    from routelab.badrecords import REASONS

    lib = Path(__file__).resolve().parents[1] / "lib" / "routelab"
    used = set()
    for path in lib.rglob("*.py"):
        used |= set(re.findall(r"\.add\(\s*\"([a-z_]+)\"", path.read_text()))
        used |= set(re.findall(r"report\.counts\[\"([a-z_]+)\"\]", path.read_text()))
        used |= set(re.findall(r"\"([a-z_]+)\",\s*where[,)]", path.read_text()))
    assert used and not used - set(REASONS), sorted(used - set(REASONS))


def test_an_export_without_matches_says_so(tmp_path, capsys):
    out = tmp_path / "w0"
    argv = ["filtering", "export", "--workload", "W0", "--n", "200", "--events", "5"]
    assert run_command("filtering", [*argv, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "0 matches" in printed and "warning: matches.csv is empty" in printed
    assert "Try more subscriptions (--n) or events (--events)" in printed
    assert json.loads((out / "summary.json").read_text())["counts"]["matches"] == 0
    argv = ["filtering", "export", "--workload", "W0", "--n", "10000", "--events", "100"]
    assert run_command("filtering", [*argv, "--out", str(tmp_path / "big")]) == 0
    assert "Try --workload W1op: it has" in capsys.readouterr().out
    argv[3] = "W1op"
    assert run_command("filtering", [*argv, "--out", str(tmp_path / "w1")]) == 0
    assert "warning" not in capsys.readouterr().out


def test_an_unknown_operator_shows_its_whole_row(tmp_path):
    (tmp_path / "subs.csv").write_text("sub_id,attr,op,value\n1,a,=>,3\n2,a,=,3\n")
    (tmp_path / "events.csv").write_text("event_id,attr,value\n1,a,3\n")
    w = read_workload(tmp_path / "subs.csv", tmp_path / "events.csv")
    (example,) = w.report.examples["unknown_operator"]
    assert example.line == 2 and example.excerpt == "1,a,=>,3"


def test_range_workload_exported_and_matched_by_bitset(tmp_path, spark):
    """``--workload ranges`` (interval subscriptions) and ``--algorithm bitset`` through
    the Spark dataflow reproduce the export's brute-force matches."""
    out, res = tmp_path / "ranges", tmp_path / "res"
    argv = ["filtering", "export", "--workload", "ranges", "--n", "4000", "--events", "60"]
    assert run_command("filtering", [*argv, "--out", str(out)]) == 0
    expected = _read_pairs(out / "matches.csv")
    assert len(expected) > 0
    argv = ["filtering", "match", "--subs", str(out / "subs.csv"), "--events",
            str(out / "events.csv"), "--algorithm", "bitset", "--out", str(res)]  # fmt: skip
    assert run_command("filtering", argv) == 0
    assert _read_pairs(res / "matches.csv") == expected
    assert json.loads((res / "summary.json").read_text())["algorithm"] == "bitset"
    assert run_command("filtering", ["filtering", "export", "--workload", "W9", "--n", "5",
                                     "--out", str(tmp_path / "bad")]) == 2  # fmt: skip
