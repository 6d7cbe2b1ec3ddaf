"""Numbers and texts as a reader meets them: rules in full numbers (no 1.12e+05),
results.json keys without Python tuples, a repeated rule stated once, long rules that stay
in their column, a replay slider without float noise, tables without NaN."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from routelab import claims as c
from routelab.report import NotebookReport, claims_html, json_key, tidy


def test_rule_numbers_from_a_thousand_up_read_with_separators():
    v = c.beyond_measured(
        112_455, 77_742, 160_000, 1_000, expected="above", repeats=6, what="the halving rate"
    )
    assert "1,000" in v.rule and "112,000 [77,700, 160,000]" in v.rule, v.rule
    assert "e+0" not in v.rule
    assert c._fmt(0.0425) == "0.0425" and c._fmt(350) == "350" and c._fmt(-2_345) == "-2,340"
    assert c.at_least(5_000, 2_000).rule == "holds if >= 2,000"
    assert c._fmt(float("nan")) == "nan"


def test_headline_tuple_keys_are_readable(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUTELAB_FIGURES_DIR", str(tmp_path))
    runs = pd.DataFrame({"mu": [50_000, 50_000, 200_000], "selector": ["DP", "GR", "GR"],
                         "bytes": [10.0, 20.0, 30.0]})  # fmt: skip
    report = NotebookReport("xx_keys", show=False)
    report.add_headline(median_bytes=runs.groupby(["mu", "selector"])["bytes"].median().to_dict())
    report.claim("c", "p", "m", verdict=c.at_least(2, 1))
    report.finish()
    data = json.loads((tmp_path / "xx_keys" / "results.json").read_text())
    assert data["headline"]["median_bytes"] == {"50000 DP": 10.0, "50000 GR": 20.0,
                                                "200000 GR": 30.0}  # fmt: skip
    assert json_key((np.int64(8), "hash")) == "8 hash" and json_key("plain") == "plain"


def test_a_combined_rule_states_a_repeated_rule_once():
    rule = "holds if the 95% interval of the paired ratio lies below 1 (>= 3 repeats)"
    parts = [
        c.Verdict("inconclusive", f"{rule}; ratio {r} [0.5, 1.2] over 3 repeats; the interval "
                  "includes 1", 3)
        for r in (0.8, 0.9, 0.7, 0.95)
    ]  # fmt: skip
    v = c.combine(parts)
    assert v.rule.count(rule) == 1, v.rule  # not four times
    assert "for each of 4 parts" in v.rule and "part 4: ratio 0.95 [0.5, 1.2]" in v.rule
    assert v.rule.count("the interval includes 1") == 1
    same = c.combine([c.Verdict("holds", "holds if >= 2"), c.Verdict("holds", "holds if >= 2")])
    assert same.rule == "holds if >= 2 (2 parts)"
    mixed = c.combine([c.Verdict("holds", "a"), c.not_comparable("b"), c.Verdict("holds", "a")])
    assert mixed.rule == "a (2 parts); not comparable: b"


def test_a_long_rule_is_cut_in_the_table_and_whole_on_hover():
    long_rule = "holds if " + "; ".join(f"part {i} lies within 1.5x of 0.5" for i in range(20))
    table = pd.DataFrame([{"claim": "x", "paper": "p", "paper_value": "", "measured": "m",
                           "verdict": "holds", "rule": long_rule, "note": "n", "kind": "claim"}])  # fmt: skip
    html = claims_html(table)
    cell = html.split("<td")[6]  # claim, paper, paper_value, measured, verdict, rule
    assert f"title='{long_rule}'" in cell and "…" in cell
    visible = cell.split(">", 2)[2]
    assert len(visible.split("<b>")[0]) <= 210
    assert "overflow-wrap:anywhere" in cell and "max-width" in cell
    short = claims_html(table.assign(rule="holds if >= 2"))
    assert "title=" not in short and ">holds if &gt;= 2<" in short


def test_tables_show_numbers_not_scientific_notation_or_nan():
    frame = pd.DataFrame({"throughput": [2_267_804.3, np.nan], "share": [0.0386, 0.1]},
                         index=pd.Index(["GR", "none"], name="selector"))  # fmt: skip
    html = tidy(frame).to_html()
    assert ">2,267,804<" in html and ">–<" in html and "e+06" not in html and "nan" not in html


def test_the_replay_offers_rounded_hours():
    from routelab.filtering.lab.adaptivity import figures as af

    hours = [k * 0.2 for k in range(1, 61)]  # tick k of 0.2 h: 51 * 0.2 = 10.200000000000001
    ticks = pd.DataFrame({"hour": hours})
    assert 10.200000000000001 in hours
    offered = af.replay_hours(ticks)
    assert 10.2 in offered and all(h == round(h, 2) for h in offered)
    assert len(offered) == 60


def test_measurements_are_saved_beside_the_figures_and_listed(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUTELAB_FIGURES_DIR", str(tmp_path))
    report = NotebookReport("xx_runs", show=False)
    runs = pd.DataFrame({"algorithm": ["hybrid", "metric"], "w_busy_runs": [[[0.5, 0.6]], [[0.7]]],
                         "latency_runs": [[1.0, 2.0], []], "data": ["d", "d"]})  # fmt: skip
    path = report.measurements(runs, "runs", description="two runs")
    back = pd.read_parquet(path)
    assert list(back.algorithm) == ["hybrid", "metric"] and len(back.latency_runs[1]) == 0
    assert [list(x) for x in back.w_busy_runs[0]] == [[0.5, 0.6]]
    report.measurements(runs.head(1), "runs", description="again")  # a second save replaces
    report.claim("c", "p", "m", verdict=c.at_least(2, 1))
    report.finish()
    data = json.loads((tmp_path / "xx_runs" / "results.json").read_text())
    assert data["measurements"] == [{"name": "runs", "file": "runs.parquet", "rows": 1,
                                     "description": "again"}]  # fmt: skip
    with pytest.raises(ValueError, match="one identifier"):
        report.measurements(runs, "../escape", description="x")
