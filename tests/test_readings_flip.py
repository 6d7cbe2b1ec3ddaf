"""Readings flipped for a whole run (``routelab.readings``): the switch
reaches the parameter defaults, a run records it, ``record`` keeps the verdicts it changes
and a default run's claims table names the reading in those rows."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from routelab import readings
from routelab.errors import BadInputError
from routelab.filtering.costmodel import CostConstants
from routelab.filtering.dynamic import Thresholds
from routelab.readings import FLIP_ENV, FLIPS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_readings_pinned_walk import READINGS, parse_readings  # noqa: E402


@pytest.fixture
def ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "ledger.json"
    monkeypatch.setattr(readings, "LEDGER", path)
    return path


def test_no_flip_keeps_our_readings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FLIP_ENV, raising=False)
    assert readings.flipped() is None
    assert Thresholds(1.0, 1.0, 1.0).dmove_strict is True
    assert CostConstants().checking == "unit"


def test_a_flip_changes_only_its_own_readings_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FLIP_ENV, "dmove")
    assert Thresholds(1.0, 1.0, 1.0).dmove_strict is False
    assert CostConstants().checking == "unit"
    assert Thresholds(1.0, 1.0, 1.0, dmove_strict=True).dmove_strict is True  # explicit wins
    monkeypatch.setenv(FLIP_ENV, "checking")
    assert CostConstants().checking == "rows"
    assert Thresholds(1.0, 1.0, 1.0).dmove_strict is True
    assert Thresholds.from_cost_model(CostConstants(), 0.1).dmove_strict is True


def test_the_load_flip_counts_pairs_per_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    from routelab.spatial.cost import CostParams

    monkeypatch.delenv(FLIP_ENV, raising=False)
    assert CostParams().model == "gi2_checks"
    monkeypatch.setenv(FLIP_ENV, "load")
    assert CostParams().model == "pairs_unit"
    assert CostParams(model="pairs_literal").model == "pairs_literal"  # explicit wins
    assert CostConstants().checking == "unit"


def test_the_merge_flip_accepts_within_sigma_of_the_average(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from routelab.spatial.hybrid import HybridParams

    monkeypatch.delenv(FLIP_ENV, raising=False)
    assert HybridParams().merge_rule == "max"
    monkeypatch.setenv(FLIP_ENV, "merge")
    assert HybridParams().merge_rule == "sigma_avg"
    assert HybridParams(merge_rule="max").merge_rule == "max"  # explicit wins


def test_several_readings_flip_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from routelab.spatial.hybrid import HybridParams

    monkeypatch.setenv(FLIP_ENV, "merge, dmove,")
    assert readings.flipped_keys() == ("dmove", "merge")
    assert readings.flipped() == "dmove,merge"
    assert Thresholds(1.0, 1.0, 1.0).dmove_strict is False
    assert HybridParams().merge_rule == "sigma_avg"
    assert CostConstants().checking == "unit"  # not named: our reading


def test_a_group_flip_is_recorded_under_every_reading_it_names(
    tmp_path: Path, ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(FLIP_ENV, raising=False)
    base = _results(tmp_path / "base", {"a": "holds", "b": "fails"})
    flip = _results(tmp_path / "f", {"a": "holds", "b": "holds"}, reading="checking,dmove")
    entry = readings.record(base, flip)
    assert entry.key == "checking,dmove" and entry.title.count(" + ") == 1
    rows = [{"claim": "b", "verdict": "fails", "note": ""}]
    (out,) = readings.annotate("10_fabret_adaptivity", "default", rows)
    assert "K_c per remaining predicate; Dmove's printed non-strict test" in out["note"]
    assert "flipping the readings '" in out["note"] and "' together moves this row" in out["note"]
    # a bisected screen's group (no half moves the row) is named as deciding together
    readings.record(base, flip, only={"b"}, together=True)
    (out,) = readings.annotate("10_fabret_adaptivity", "default", rows)
    assert "' decide this row together (no half of them alone)" in out["note"]
    assert out["note"].endswith(", one flipped run)")  # how the verdict was found
    again = _results(tmp_path / "g", {"a": "holds", "b": "holds"}, reading="checking,dmove")
    readings.record(base, flip, confirm=again)
    (out,) = readings.annotate("10_fabret_adaptivity", "default", rows)
    assert out["note"].endswith(", 2 flipped runs agree)")
    regraded = _results(tmp_path / "r", {"a": "holds", "b": "holds"}, reading="checking,dmove")
    found = regraded / "results.json"
    found.write_text(json.dumps({**json.loads(found.read_text()), "regraded_from": "x"}))
    readings.record(base, regraded)
    (out,) = readings.annotate("10_fabret_adaptivity", "default", rows)
    assert out["note"].endswith("regraded from that run's saved measurements)")


def test_an_unknown_flip_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FLIP_ENV, "strictness")
    with pytest.raises(
        BadInputError, match="'strictness' names no reading.*checking, .*dmove, .*merge"
    ):
        readings.flipped()
    monkeypatch.setenv(FLIP_ENV, "dmove, strictness")
    with pytest.raises(BadInputError, match="'strictness' names no reading"):
        readings.is_flipped("dmove")
    with pytest.raises(KeyError, match="no flippable reading"):
        readings.is_flipped("nope")


def test_every_flip_is_a_switched_reading_of_readings_md() -> None:
    by_title = {r.title: r for r in parse_readings(READINGS.read_text())}
    for key, flip in FLIPS.items():
        assert flip.title in by_title, f"{key}: {flip.title!r} is no READINGS.md title"
        reading = by_title[flip.title]
        assert reading.has_switch and flip.parameter in reading.switch, key
        assert f"{FLIP_ENV}={key}" in " ".join(reading.text.split()), (
            f"{key}: READINGS.md should say how to flip it for a run"
        )
        assert all(n[:2].isdigit() for n in flip.notebooks)


def test_every_switched_reading_can_be_flipped_for_a_run_or_says_why_not() -> None:
    flippable = {f.title for f in FLIPS.values()}
    missing = [
        r.title
        for r in parse_readings(READINGS.read_text())
        if r.has_switch
        and r.title not in flippable
        and "Not flipped for a whole run:" not in " ".join(r.text.split())
    ]
    assert not missing, f"readings with a switch but no whole-run flip or reason: {missing}"


def test_the_committed_ledger_names_known_flips_and_notebooks() -> None:
    for e in readings.load_ledger():
        keys = e["key"].split(",")
        assert all(k in FLIPS for k in keys), e["key"]
        assert e["title"] == " + ".join(FLIPS[k].title.rstrip(".") for k in keys) + "."
        assert any(e["notebook"] in FLIPS[k].notebooks for k in keys)
        assert e["compared"] >= len(e["differs"])
        assert not set(e.get("noisy", [])) & {d["claim"] for d in e["differs"]}  # never both


def _results(path: Path, verdicts: dict[str, str], *, reading: str | None = None,
             notebook: str = "10_fabret_adaptivity", profile: str = "default") -> Path:  # fmt: skip
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.json").write_text(json.dumps({
        "notebook": notebook, "profile": profile, "git_commit": "abcdef1234567", "clock": "cpu",
        "reading": reading,
        "claims": [{"claim": c, "verdict": v, "note": ""} for c, v in verdicts.items()],
    }))  # fmt: skip
    return path


def test_readings_list_one_run_shows_only_the_entries_a_second_run_should_confirm(
    tmp_path: Path, ledger: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from routelab.cli import main

    base = _results(tmp_path / "base", {"a": "holds", "b": "fails"})
    # dmove: one flipped run moves 'a' -> listed
    readings.record(base, _results(tmp_path / "d", {"a": "fails", "b": "fails"}, reading="dmove"))
    # checking: two flipped runs agree on 'b' -> not listed
    flip = _results(tmp_path / "c1", {"a": "holds", "b": "holds"}, reading="checking")
    again = _results(tmp_path / "c2", {"a": "holds", "b": "holds"}, reading="checking")
    assert readings.record(base, flip, confirm=again).runs == 2
    # checking+dmove together: one run, nothing moved -> not listed
    readings.record(base, _results(tmp_path / "g", {"a": "holds", "b": "fails"},
                                   reading="checking,dmove"))  # fmt: skip
    assert main(["readings", "list", "--one-run"]) == 0
    out = capsys.readouterr().out
    assert "dmove: " in out and "'a' holds -> fails" in out
    assert "one flipped run (no second run confirmed these rows)" in out
    assert "checking: " not in out and "flipped together" not in out
    assert "1 entries move rows on one flipped run" in out
    # without the flag every reading is listed, the confirmed entry too
    assert main(["readings", "list"]) == 0
    out = capsys.readouterr().out
    assert "checking: " in out and "2 flipped runs agree on every row" in out


def test_record_keeps_the_rows_whose_verdict_differs(tmp_path: Path, ledger: Path) -> None:
    base = _results(tmp_path / "base", {"a": "holds", "b": "fails", "c": "partly"})
    flip = _results(tmp_path / "flip", {"a": "holds", "b": "holds", "d": "fails"}, reading="dmove")
    entry = readings.record(base, flip)
    assert entry.compared == 2  # a and b: c and d are in one run only
    assert entry.differs == [{"claim": "b", "default": "fails", "alternative": "holds"}]
    assert readings.load_ledger() == readings.load_ledger(ledger)
    # recording again replaces the entry of that reading, notebook and profile
    flip2 = _results(tmp_path / "flip2", {"a": "holds", "b": "fails"}, reading="dmove")
    readings.record(base, flip2 / "results.json")
    (only,) = readings.load_ledger()
    assert only["differs"] == []


@pytest.mark.parametrize(
    ("base_kw", "flip_kw", "message"),
    [
        ({}, {"reading": None}, "no reading flipped"),
        ({"reading": "dmove"}, {"reading": "dmove"}, "not a default run"),
        ({}, {"reading": "dmove", "notebook": "09_fabret_matching"}, "is notebook"),
        ({}, {"reading": "dmove", "profile": "smoke"}, "ran profile"),
        ({}, {"reading": "nope"}, "is not among"),
        ({}, {"reading": "dmove,nope"}, "is not among"),
    ],
)
def test_record_refuses_runs_that_do_not_compare(
    tmp_path: Path, ledger: Path, base_kw: dict, flip_kw: dict, message: str
) -> None:
    base = _results(tmp_path / "base", {"a": "holds"}, **base_kw)
    flip = _results(tmp_path / "flip", {"a": "fails"}, **flip_kw)
    with pytest.raises(BadInputError, match=message):
        readings.record(base, flip)
    assert not ledger.exists()
    with pytest.raises(BadInputError, match="no such results.json"):
        readings.record(tmp_path / "missing.json", flip)


def test_annotate_names_the_reading_where_it_decides(
    tmp_path: Path, ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(FLIP_ENV, raising=False)
    base = _results(tmp_path / "base", {"a": "holds", "b": "fails"})
    readings.record(base, _results(tmp_path / "f", {"a": "holds", "b": "holds"}, reading="dmove"))
    rows = [{"claim": "a", "verdict": "holds", "note": ""},
            {"claim": "b", "verdict": "fails", "note": "x"}]  # fmt: skip
    out = readings.annotate("10_fabret_adaptivity", "default", rows)
    assert out[0]["note"] == ""
    assert out[1]["note"].startswith("x; the reading 'Dynamic clustering's Dmove")
    assert "it read holds" in out[1]["note"] and "abcdef1" in out[1]["note"]
    assert readings.annotate("10_fabret_adaptivity", "default", out) == out  # once only
    # another verdict now than the ledger's default run read: the ledger no longer speaks
    moved = [{"claim": "b", "verdict": "partly", "note": ""}]
    assert readings.annotate("10_fabret_adaptivity", "default", moved) == moved
    assert readings.annotate("10_fabret_adaptivity", "smoke", rows) == rows  # other profile
    monkeypatch.setenv(FLIP_ENV, "dmove")  # a flipped run is not annotated
    assert readings.annotate("10_fabret_adaptivity", "default", rows) == rows


def test_a_run_records_its_flip_and_its_table_the_ledgers_notes(
    tmp_path: Path, ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from routelab.claims import Verdict
    from routelab.report import NotebookReport

    monkeypatch.setenv("ROUTELAB_FIGURES_DIR", str(tmp_path / "figs"))
    base = _results(tmp_path / "base", {"a": "fails"}, notebook="xx_flip")
    flip = _results(tmp_path / "f", {"a": "holds"}, notebook="xx_flip", reading="checking")
    readings.record(base, flip)
    for env, noted in ((None, True), ("checking", False)):
        if env:
            monkeypatch.setenv(FLIP_ENV, env)
        else:
            monkeypatch.delenv(FLIP_ENV, raising=False)
        report = NotebookReport("xx_flip", profile="default", show=False)
        report.claim("a", "Sect. 1", "m", verdict=Verdict("fails", "r"))
        report.finish()
        out = json.loads((tmp_path / "figs" / "xx_flip" / "results.json").read_text())
        assert out["reading"] == env
        assert (
            "the reading 'checking(p, s), cost model (Sect. 3.1)'" in out["claims"][0]["note"]
        ) is noted


def test_spark_tasks_read_the_drivers_flip(spark, monkeypatch: pytest.MonkeyPatch) -> None:
    from routelab.spark import get_spark

    def _task_flip(_: object) -> list[bool]:  # defined here: shipped by value, not by name
        from routelab.filtering.dynamic import Thresholds

        return [Thresholds(1.0, 1.0, 1.0).dmove_strict]

    monkeypatch.setenv(FLIP_ENV, "dmove")
    sc = get_spark().sparkContext  # the factory hands the flip to the jobs built after it
    assert sc.parallelize([0], 1).mapPartitions(_task_flip).collect() == [False]
    monkeypatch.delenv(FLIP_ENV)
    sc = get_spark().sparkContext
    assert sc.parallelize([0], 1).mapPartitions(_task_flip).collect() == [True]


def test_readings_list_shows_a_group_entry_under_each_reading_it_flipped(
    tmp_path: Path, ledger: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from routelab.cli import main

    base = _results(tmp_path / "base", {"a": "holds", "b": "fails"})
    readings.record(base, _results(tmp_path / "g", {"a": "holds", "b": "fails"},
                                   reading="checking,dmove"))  # fmt: skip
    readings.record(base, _results(tmp_path / "s", {"a": "fails", "b": "fails"}, reading="dmove"))
    assert main(["readings", "list"]) == 0
    out = capsys.readouterr().out
    checking = out.split("checking: ")[1].split("\n\n")[0].split("\nload: ")[0]
    assert "10_fabret_adaptivity (default, abcdef1 / abcdef1, flipped together with 1 more): " \
        "0 of 2 rows differ" in checking  # fmt: skip
    dmove = out.split("dmove: ")[1].split("\nchecking: ")[0]
    assert "flipped together with 1 more): 0 of 2" in dmove
    assert "(default, abcdef1 / abcdef1): 1 of 2 rows differ: 'a' holds -> fails" in dmove
    # a group kept to the rows no smaller set moves says so
    both = _results(tmp_path / "b", {"a": "fails", "b": "holds"}, reading="checking,dmove")
    entry = readings.record(base, both, only={"b"})
    assert entry.filtered and [d["claim"] for d in entry.differs] == ["b"]
    assert main(["readings", "list"]) == 0
    assert (
        "1 of 2 rows differ (kept: the rows no run of fewer of these readings moved): 'b' fails -> holds"
        in (capsys.readouterr().out)
    )
    # rows a control default run moves too are left out, and the list says which
    control = _results(tmp_path / "c", {"a": "fails", "b": "fails"})
    entry = readings.record(base, _results(tmp_path / "s2", {"a": "fails", "b": "holds"},
                                           reading="dmove"), controls=[control])  # fmt: skip
    assert [d["claim"] for d in entry.differs] == ["b"] and entry.noisy == ["a"]
    assert main(["readings", "list"]) == 0
    dmove = capsys.readouterr().out.split("dmove: ")[1].split("\nchecking: ")[0]
    assert "1 of 2 rows differ: 'b' fails -> holds\n" in dmove
    assert "left out as noise (a control default run moves them too): a" in dmove
