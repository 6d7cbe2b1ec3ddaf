"""The reading screen: a group of readings run together, bisected down to the readings that
decide rows, with rows only a group moves kept under it (a fake notebook stands in)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from routelab import reading_screen as rs
from routelab import readings
from routelab.cli import main
from routelab.errors import BadInputError

NB = "13_five_routers"
KEYS = ("checking", "dmove", "greedy", "load", "merge", "posting", "purge", "smoothing")


def fake_notebook(
    tmp_path: Path,
    effects: dict[frozenset[str], set[str]],
    noise: frozenset[str] = frozenset(),
    once: frozenset[str] = frozenset(),
):
    """A runner whose rows a-e hold by default; a row fails under a set of keys when one
    of ``effects``' key sets (all its keys flipped) names it, the rows ``noise`` fail in
    every flipped run (a loaded machine's timing rows) and the rows ``once`` in every first
    flipped run of a set of keys, never in a repeat (one run's noise). Counts its runs."""
    calls: list[tuple[str, ...]] = []

    def run(keys: tuple[str, ...], repeat: int = 0) -> Path:
        calls.append(keys)
        flipped = {row for need, rows in effects.items() if need <= set(keys) for row in rows}
        flipped |= noise if keys else set()
        flipped |= once if keys and not repeat else set()
        where = tmp_path / (("+".join(keys) or "default") + (f"~{repeat + 1}" if repeat else ""))
        where.mkdir(parents=True, exist_ok=True)
        (where / "results.json").write_text(json.dumps({
            "notebook": NB, "profile": "default", "git_commit": "abcdef1234567",
            "clock": "cpu", "reading": ",".join(keys) or None,
            "claims": [{"claim": c, "verdict": "fails" if c in flipped else "holds", "note": ""}
                       for c in "abcde"],
        }))  # fmt: skip
        return where / "results.json"

    return run, calls


def _found(screen: rs.Screen) -> dict[tuple[tuple[str, ...], bool], set[str]]:
    return {(f.keys, f.together): set(f.moved) for f in screen.findings}


def test_single_deciders_and_an_interaction_are_found(tmp_path: Path) -> None:
    run, calls = fake_notebook(tmp_path, {
        frozenset({"dmove"}): {"a"}, frozenset({"merge"}): {"b"},
        frozenset({"checking", "smoothing"}): {"c"},  # only together
    })  # fmt: skip
    s = rs.screen(NB, KEYS, run, log=lambda _: None)
    found = _found(s)
    assert found[(("dmove",), False)] == {"a"}
    assert found[(("merge",), False)] == {"b"}
    assert found[(KEYS, True)] == {"c"}  # no half moves it: the whole group decides it
    assert all(not rows for (keys, together), rows in found.items()
               if keys not in {("dmove",), ("merge",), KEYS})  # fmt: skip
    # every reading is covered by a finding that ran it alone or in a group moving nothing
    covered = {k for f in s.findings if f.keys != KEYS for k in f.keys}
    assert covered == set(KEYS)
    assert calls[0] == () and calls[1] == KEYS and len(calls) == len(s.runs)
    assert [f.moved for f in s.findings if f.keys == ("dmove",)] == [{"a": ("holds", "fails")}]


def test_a_row_a_reading_moves_is_never_kept_under_a_group_above_it(tmp_path: Path) -> None:
    """'a' moves under checking unless greedy is flipped too (without smoothing): the whole
    group moves it, the left half (with greedy) does not, but a quarter below that half
    does and checking alone does. It is checking's finding, not an interaction of the
    whole group."""
    run, _ = fake_notebook(tmp_path, {frozenset({"dmove"}): {"b"}})

    def cancelling(ks: tuple[str, ...]) -> Path:
        path = run(ks)
        moves_a = "checking" in ks and ("greedy" not in ks or "smoothing" in ks)
        data = json.loads(path.read_text())
        for c in data["claims"]:
            if c["claim"] == "a":
                c["verdict"] = "fails" if moves_a else "holds"
        path.write_text(json.dumps(data))
        return path

    s = rs.screen(NB, KEYS, cancelling, log=lambda _: None)
    found = _found(s)
    assert found[(("checking",), False)] == {"a"} and found[(("dmove",), False)] == {"b"}
    assert not any(together for _, together in found)


def test_the_default_run_must_be_a_default_run_of_the_notebook(tmp_path: Path) -> None:
    run, _ = fake_notebook(tmp_path, {})
    flipped = run(("dmove",))
    with pytest.raises(BadInputError, match="flipped reading 'dmove', not a default run"):
        rs.screen(NB, KEYS, run, base=flipped, log=lambda _: None)
    other = tmp_path / "other" / "results.json"
    other.parent.mkdir()
    other.write_text(json.dumps({"notebook": "10_fabret_adaptivity", "claims": []}))
    with pytest.raises(BadInputError, match="a run of '10_fabret_adaptivity', not of"):
        rs.screen(NB, KEYS, run, base=other, log=lambda _: None)


def test_a_group_that_moves_nothing_is_one_run(tmp_path: Path) -> None:
    run, calls = fake_notebook(tmp_path, {})
    s = rs.screen(NB, KEYS, run, log=lambda _: None)
    assert calls == [(), KEYS]
    assert _found(s) == {(KEYS, False): set()}
    base = run(())
    calls.clear()
    s = rs.screen(NB, KEYS, run, base=base, log=lambda _: None)  # a default run given
    assert calls == [KEYS] and s.base == base


def test_one_decider_among_eight_takes_1_plus_2_log2_runs(tmp_path: Path) -> None:
    run, calls = fake_notebook(tmp_path, {frozenset({"purge"}): {"d"}})
    s = rs.screen(NB, KEYS, run, log=lambda _: None)
    assert len(calls) == 1 + 1 + 2 * 3  # the default, the group, two halves per level
    assert _found(s)[(("purge",), False)] == {"d"}


def test_reaching_and_bad_input() -> None:
    keys = rs.reaching("10_fabret_adaptivity")
    assert {"checking", "dmove", "greedy", "smoothing"} <= set(keys)
    assert "checking" not in rs.reaching("10_fabret_adaptivity", skip=["checking"])
    with pytest.raises(BadInputError, match="no flippable reading reaches"):
        rs.reaching("99_nothing")
    with pytest.raises(BadInputError, match="unknown reading"):
        rs.reaching("10_fabret_adaptivity", skip=["nope"])
    with pytest.raises(BadInputError, match="unknown reading"):
        rs.screen(NB, ["nope"], lambda keys: Path(), log=lambda _: None)
    with pytest.raises(BadInputError, match="no reading to screen"):
        rs.screen(NB, [], lambda keys: Path(), log=lambda _: None)


def test_cli_screens_and_records_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    ledger = tmp_path / "ledger.json"
    monkeypatch.setattr(readings, "LEDGER", ledger)
    run, _ = fake_notebook(tmp_path / "runs", {
        frozenset({"dmove"}): {"a"}, frozenset({"checking", "smoothing"}): {"c"},
    })  # fmt: skip
    monkeypatch.setattr(rs, "figures_runner", lambda *a, **k: run)
    args = ["readings", "screen", "13", "--keys", ",".join(KEYS), "--skip", "greedy",
            "--out", str(tmp_path / "out"), "--record"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "  dmove: 1 row(s) (two runs agree)\n    a: holds -> fails" in out
    assert "together: checking,dmove,load,merge,posting,purge,smoothing: 1 row(s)" in out
    entries = {e["key"]: e for e in readings.load_ledger(ledger)}
    assert [d["claim"] for d in entries["dmove"]["differs"]] == ["a"]
    group = entries["checking,dmove,load,merge,posting,purge,smoothing"]
    assert [d["claim"] for d in group["differs"]] == ["c"]  # 'a' is dmove's, kept there only
    assert group["together"] and not entries["dmove"]["together"]
    assert all(not e["differs"] for k, e in entries.items() if k not in {"dmove", group["key"]})


def test_the_runner_names_a_failed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Done:
        returncode = 0

    def writes_nothing(*a, **k):
        return Done()

    monkeypatch.setattr(rs.subprocess, "run", writes_nothing)
    run = rs.figures_runner(NB, "smoke", tmp_path)
    stale = tmp_path / "smoke" / "dmove" / "figures" / NB
    stale.mkdir(parents=True)
    (stale / "results.json").write_text("{}")  # an earlier screen's: never read as this run's
    with pytest.raises(BadInputError, match=r"13_five_routers under dmove failed \(exit 0\)"):
        run(("dmove",))
    long = tuple(sorted(readings.FLIPS))[:20]
    with pytest.raises(BadInputError, match="group20-"):
        run(long)

    def too_long(*a, **k):
        raise rs.subprocess.TimeoutExpired("routelab", 5)

    monkeypatch.setattr(rs.subprocess, "run", too_long)
    with pytest.raises(BadInputError, match=r"under dmove ran past --timeout 5 s; see .*run.log"):
        rs.figures_runner(NB, "smoke", tmp_path, timeout=5)(("dmove",))


def test_cli_runs_go_under_the_runs_directory_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Not a new folder at the top of the project: papermill_runs/reading_screen/<notebook>;
    and ``--resume`` reaches the runner."""
    monkeypatch.setenv("ROUTELAB_RUNS_DIR", str(tmp_path / "runs"))
    run, _ = fake_notebook(tmp_path / "fake", {})
    seen: list[tuple[Path, bool]] = []

    def runner(notebook: str, profile: str, out: Path, timeout: float | None, resume: bool):
        seen.append((out, resume))
        return run

    monkeypatch.setattr(rs, "figures_runner", runner)
    assert main(["readings", "screen", "13", "--keys", "dmove"]) == 0
    assert f"{NB}: 2 run(s)" in capsys.readouterr().out
    assert main(["readings", "screen", "13", "--keys", "dmove", "--resume"]) == 0
    assert seen == [(tmp_path / "runs" / "reading_screen" / NB, False)] + [
        (tmp_path / "runs" / "reading_screen" / NB, True)
    ]


def _finished(
    where: Path, keys: str | None, commit: str, profile: str = "smoke", ok: bool = True
) -> Path:
    """A run's folder as `routelab figures` leaves it: results.json and run_log.json."""
    results = where / "figures" / NB / "results.json"
    results.parent.mkdir(parents=True)
    results.write_text(json.dumps({"notebook": NB, "profile": profile, "git_commit": commit,
                                   "reading": keys, "claims": []}))  # fmt: skip
    log = where / "runs" / profile / "run_log.json"
    log.parent.mkdir(parents=True)
    status = "ok" if ok else "failed"
    log.write_text(json.dumps({"profile": profile, "git_commit": commit, "ok": ok,
                               "runs": [{"notebook": NB, "status": status}]}))  # fmt: skip
    return results


def test_resume_takes_a_finished_run_of_this_commit_and_reruns_any_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A screen stopped part-way goes on: with ``resume`` a run that finished on this very
    commit, under the same readings and profile, is not run again; a run of another commit,
    readings or profile, or any run while the checkout is modified, is run again."""
    ran: list[tuple[str, ...]] = []

    class Done:
        returncode = 0

    def fake_run(cmd, env, **kwargs):  # writes a finished run where the runner looks
        ran.append(tuple(env[readings.FLIP_ENV].split(",")))
        results = Path(env["ROUTELAB_FIGURES_DIR"]) / NB / "results.json"
        results.parent.mkdir(parents=True)
        results.write_text("{}")
        return Done()

    monkeypatch.setattr(rs.subprocess, "run", fake_run)
    commit = {"now": "abc1234567"}
    monkeypatch.setattr("routelab.paths.git_commit", lambda: commit["now"])
    logged: list[str] = []
    run = rs.figures_runner(NB, "smoke", tmp_path, resume=True, log=logged.append)
    done = _finished(tmp_path / "smoke" / "dmove", "dmove", "abc1234567")
    assert run(("dmove",)) == done and not ran  # taken as it is
    assert "taken from the finished run" in logged[0]
    _finished(tmp_path / "smoke" / "load", "load", "0000000000")  # another commit's
    run(("load",))
    _finished(tmp_path / "smoke" / "merge", "merge,load", "abc1234567")  # other readings
    run(("merge",))
    _finished(tmp_path / "smoke" / "purge", "purge", "abc1234567", profile="default")
    run(("purge",))
    _finished(tmp_path / "smoke" / "posting", "posting", "abc1234567", ok=False)  # it failed
    run(("posting",))
    assert ran == [("load",), ("merge",), ("purge",), ("posting",)]
    assert "holds no run of this commit that finished well" in logged[-1]
    here = tmp_path / "smoke" / "dmove"
    assert rs.finished_run(here, NB, "smoke", ("dmove",))
    assert not rs.finished_run(here, NB, "default", ("dmove",))
    (here / "runs" / "smoke" / "run_log.json").unlink()  # stopped before `figures` ended
    assert not rs.finished_run(here, NB, "smoke", ("dmove",))
    (here / "runs" / "smoke" / "run_log.json").write_text("[1, 2]")  # not a run log
    assert not rs.finished_run(here, NB, "smoke", ("dmove",))
    _finished(tmp_path / "other", "dmove", "abc1234567")
    assert rs.finished_run(tmp_path / "other", NB, "smoke", ("dmove",))
    commit["now"] = "abc1234567+dirty"  # a modified checkout: nothing can be taken, and said
    assert not rs.finished_run(tmp_path / "other", NB, "smoke", ("dmove",))
    rs.figures_runner(NB, "smoke", tmp_path, resume=True, log=logged.append)
    assert "--resume takes no run" in logged[-1]
    commit["now"] = "abc1234567"
    ran.clear()
    rs.figures_runner(NB, "smoke", tmp_path, log=logged.append)(("dmove",))  # no resume
    assert ran == [("dmove",)]


def _default_run(path: Path, failing: set[str], notebook: str = NB, reading: str | None = None):
    """A default run's results.json at ``path``: rows a-e, the ``failing`` ones failing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "notebook": notebook, "profile": "default", "git_commit": "abcdef1234567",
        "clock": "cpu", "reading": reading,
        "claims": [{"claim": c, "verdict": "fails" if c in failing else "holds", "note": ""}
                   for c in "abcde"],
    }))  # fmt: skip
    return path


def test_a_row_a_control_run_moves_is_noise_and_drives_no_bisection(tmp_path: Path) -> None:
    effects = {frozenset({"dmove"}): {"a"}}
    run, calls = fake_notebook(tmp_path / "noisy", effects, noise=frozenset({"e"}))
    loud = rs.screen(NB, KEYS, run, log=lambda _: None)
    assert len(calls) == 2 * len(KEYS)  # 'e' moves everywhere: down to every single reading
    assert _found(loud)[(("merge",), False)] == {"e"}  # and blamed on each of them
    base = tmp_path / "noisy" / "default" / "results.json"  # the run the screen made first
    control = _default_run(tmp_path / "control.json", {"e"})  # the same code, loaded
    run, calls = fake_notebook(tmp_path / "quiet", effects, noise=frozenset({"e"}))
    lines: list[str] = []
    s = rs.screen(NB, KEYS, run, base=base, controls=[control], log=lines.append)
    assert s.noisy == {"e": ["holds", "fails"]}
    assert len(calls) == 1 + 2 * 3  # 1 + 2 log2(8): only 'a' drives the bisection
    found = _found(s)
    assert found[(("dmove",), False)] == {"a"}
    assert all(rows <= {"a"} for rows in found.values())
    assert "left out as noise (a control default run moves them): e" in lines[0]
    # a control that agrees with the base leaves every row in
    calm = _default_run(tmp_path / "calm.json", set())
    run, calls = fake_notebook(tmp_path / "calm", effects, noise=frozenset({"e"}))
    assert rs.screen(NB, KEYS, run, base=base, controls=[calm], log=lambda _: None).noisy == {}
    assert len(calls) == 2 * len(KEYS) - 1


def test_a_control_must_be_a_default_run_of_the_notebook(tmp_path: Path) -> None:
    base = _default_run(tmp_path / "base.json", set())
    other = _default_run(tmp_path / "other.json", set(), notebook="11_ps2stream_partitioning")
    flipped = _default_run(tmp_path / "flipped.json", set(), reading="dmove")
    run, calls = fake_notebook(tmp_path / "runs", {})
    with pytest.raises(BadInputError, match="other.json: a run of '11_ps2stream"):
        rs.screen(NB, KEYS, run, base=base, controls=[other], log=lambda _: None)
    with pytest.raises(BadInputError, match="flipped.json: a run under the flipped reading"):
        rs.screen(NB, KEYS, run, base=base, controls=[flipped], log=lambda _: None)
    with pytest.raises(BadInputError, match="other.json: a run of 11_ps2stream"):
        readings.noisy_rows(base, [other])
    assert not calls


def test_record_leaves_the_rows_a_control_moves_out(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.json"
    base = _default_run(tmp_path / "base.json", set())
    flip = _default_run(tmp_path / "flip.json", {"a", "b", "e"}, reading="dmove")
    controls = [_default_run(tmp_path / "c1.json", {"b"}), _default_run(tmp_path / "c2.json",
                                                                         {"b", "c"})]  # fmt: skip
    assert readings.noisy_rows(base, controls) == {"b": ["holds", "fails", "fails"],
                                                   "c": ["holds", "fails"]}  # fmt: skip
    entry = readings.record(base, flip, ledger, controls=controls)
    assert [d["claim"] for d in entry.differs] == ["a", "e"]
    assert entry.noisy == ["b"]  # 'c' is noisy too, but this flip did not move it
    assert readings.record(base, flip, ledger).noisy == []  # no control: every row kept


def test_cli_screen_and_record_take_controls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    ledger = tmp_path / "ledger.json"
    monkeypatch.setattr(readings, "LEDGER", ledger)
    run, _ = fake_notebook(tmp_path / "runs", {frozenset({"dmove"}): {"a"}}, frozenset({"e"}))
    monkeypatch.setattr(rs, "figures_runner", lambda *a, **k: run)
    base = _default_run(tmp_path / "base.json", set())
    control = _default_run(tmp_path / "control.json", {"e"})
    args = ["readings", "screen", "13", "--keys", ",".join(KEYS), "--base", str(base),
            "--control", str(control), "--out", str(tmp_path / "out"), "--record"]  # fmt: skip
    elsewhere = tmp_path / "elsewhere.json"  # --ledger: written there, the package's untouched
    assert main([*args, "--ledger", str(elsewhere)]) == 0 and not ledger.exists()
    assert "dmove" in {e["key"] for e in readings.load_ledger(elsewhere)}
    capsys.readouterr()
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "  dmove: 1 row(s) (two runs agree)\n    a: holds -> fails" in out
    assert "left out as noise: e (holds / fails in the default runs)" in out
    entries = {e["key"]: e for e in readings.load_ledger(ledger)}
    assert [d["claim"] for d in entries["dmove"]["differs"]] == ["a"]
    assert entries["dmove"]["noisy"] == ["e"]
    assert not any(d["claim"] == "e" for e in entries.values() for d in e["differs"])
    flip = tmp_path / "runs" / "dmove" / "results.json"
    assert main(["readings", "record", str(base), str(flip), "--control", str(control),
                 "--ledger", str(ledger)]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "under 'dmove': 1 of 5 rows differ" in out
    assert "(left out as noise, a control moves it too: e)" in out


def test_confirm_keeps_only_the_rows_a_second_run_moves_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # 'a' is dmove's in every run; 'e' moves in each first run only (noise no control shows)
    run, calls = fake_notebook(tmp_path / "one", {frozenset({"dmove"}): {"a"}},
                               once=frozenset({"e"}))  # fmt: skip
    base = _default_run(tmp_path / "base.json", set())
    plain = _found(rs.screen(NB, ("dmove",), run, base=base, log=lambda _: None))
    assert plain == {(("dmove",), False): {"a", "e"}}  # one run's word: 'e' blamed on dmove
    run, calls = fake_notebook(tmp_path / "two", {frozenset({"dmove"}): {"a"}},
                               once=frozenset({"e"}))  # fmt: skip
    s = rs.screen(NB, ("dmove",), run, base=base, confirm=True, log=lambda _: None)
    assert calls == [("dmove",), ("dmove",)]  # the same reading, run twice
    (f,) = s.findings
    assert f.moved == {"a": ("holds", "fails")} and f.unconfirmed == {"e": ("holds", "fails")}
    assert f.confirm == tmp_path / "two" / "dmove~2" / "results.json"
    # a reading that moves nothing, and a group whose rows a reading explains, are not run
    # again
    run, calls = fake_notebook(tmp_path / "three", {frozenset({"dmove"}): {"a"}})
    rs.screen(NB, ("dmove", "load"), run, base=base, confirm=True, log=lambda _: None)
    assert calls == [("dmove", "load"), ("dmove",), ("dmove",), ("load",)]
    # the ledger keeps the confirmed rows, names the others, and says two runs agree
    ledger = tmp_path / "ledger.json"
    entry = readings.record(base, f.path, ledger, confirm=f.confirm)
    assert [d["claim"] for d in entry.differs] == ["a"]
    assert entry.unconfirmed == ["e"] and entry.runs == 2 and not entry.regraded
    with pytest.raises(BadInputError, match="not a second run of"):
        readings.record(base, f.path, ledger, confirm=base)
    # and the CLI: on by default, off with --no-confirm
    monkeypatch.setattr(readings, "LEDGER", ledger)
    for flag, kept in (([], {"a"}), (["--no-confirm"], {"a", "e"})):
        run, calls = fake_notebook(tmp_path / f"cli{len(flag)}", {frozenset({"dmove"}): {"a"}},
                                   once=frozenset({"e"}))  # fmt: skip
        monkeypatch.setattr(rs, "figures_runner", lambda *a, _run=run, **k: _run)
        assert main(["readings", "screen", "13", "--keys", "dmove", "--base", str(base),
                     "--record", *flag]) == 0  # fmt: skip
        out = capsys.readouterr().out
        (e,) = [e for e in readings.load_ledger(ledger) if e["key"] == "dmove"]
        assert {d["claim"] for d in e["differs"]} == kept and e["runs"] == (1 if flag else 2)
        said = "(not confirmed by the second run, left out: e: holds -> fails)" in out
        assert said == (not flag)
        assert main(["readings", "list"]) == 0
        listed = capsys.readouterr().out
        assert ("2 flipped runs agree on every row" in listed) == (not flag)
        assert ("one flipped run (no second run confirmed these rows)" in listed) == bool(flag)
        assert ("a second flipped run does not move them the same way: e" in listed) == (not flag)


def test_confirm_runs_a_group_with_interaction_rows_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """'c' moves only under checking and smoothing together, in every run (an interaction);
    'e' moves in the group's first run only (one run's noise no control shows): the group is
    run a second time, which keeps 'c' and leaves 'e' out as unconfirmed."""
    pair = ("checking", "smoothing")

    def runner(where: Path):
        inner, calls = fake_notebook(where, {frozenset(pair): {"c"}})

        def run(keys: tuple[str, ...], repeat: int = 0) -> Path:
            path = inner(keys, repeat)
            if keys == pair and not repeat:
                data = json.loads(path.read_text())
                data["claims"][-1]["verdict"] = "fails"  # 'e'
                path.write_text(json.dumps(data))
            return path

        return run, calls

    base = _default_run(tmp_path / "base.json", set())
    run, calls = runner(tmp_path / "one")
    s = rs.screen(NB, pair, run, base=base, confirm=True, log=lambda _: None)
    assert calls == [pair, ("checking",), ("smoothing",), pair]  # the group, run again last
    (f,) = [f for f in s.findings if f.together]
    assert f.moved == {"c": ("holds", "fails")} and f.unconfirmed == {"e": ("holds", "fails")}
    assert f.confirm == tmp_path / "one" / "checking+smoothing~2" / "results.json"
    # without confirm the group's one run is taken at its word, 'e' included
    run, calls = runner(tmp_path / "two")
    s = rs.screen(NB, pair, run, base=base, log=lambda _: None)
    assert calls == [pair, ("checking",), ("smoothing",)]
    assert _found(s)[(pair, True)] == {"c", "e"}
    # the CLI records the group's entry as an interaction two runs agree on, 'e' named
    ledger = tmp_path / "ledger.json"
    monkeypatch.setattr(readings, "LEDGER", ledger)
    run, calls = runner(tmp_path / "cli")
    monkeypatch.setattr(rs, "figures_runner", lambda *a, _run=run, **k: _run)
    assert main(["readings", "screen", "13", "--keys", ",".join(pair), "--base", str(base),
                 "--record"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "together: checking,smoothing: 1 row(s) (two runs agree)" in out
    assert "(not confirmed by the second run, left out: e: holds -> fails)" in out
    (e,) = [e for e in readings.load_ledger(ledger) if e["key"] == "checking,smoothing"]
    assert [d["claim"] for d in e["differs"]] == ["c"] and e["unconfirmed"] == ["e"]
    assert e["together"] and e["filtered"] and e["runs"] == 2


def test_graded_only_readings_are_regraded_not_run(tmp_path: Path) -> None:
    run, calls = fake_notebook(tmp_path, {frozenset({"dmove"}): {"a"}})
    base = _default_run(tmp_path / "base.json", set())
    regraded: list[tuple[str, ...]] = []

    def regrade(path: Path, keys: tuple[str, ...]) -> Path:  # 'similar' moves 'b' exactly
        assert path == base
        regraded.append(keys)
        out = _default_run(tmp_path / "rg" / "+".join(keys) / "results.json",
                           {"b"} if "similar" in keys else set(), reading=",".join(keys))  # fmt: skip
        out.write_text(json.dumps({**json.loads(out.read_text()), "regraded_from": str(path)}))
        return out

    s = rs.screen(NB, ("dmove", "fig11", "similar"), run, base=base, regrade=regrade,
                  confirm=True, log=lambda _: None)  # fmt: skip
    assert calls == [("dmove", "fig11", "similar"), ("dmove",), ("dmove",)]  # never the rest
    assert regraded == [("fig11", "similar"), ("fig11",), ("similar",)]
    found = {f.keys: f for f in s.findings}
    assert set(found[("similar",)].moved) == {"b"} and found[("similar",)].regraded
    assert found[("similar",)].confirm is None  # exact: no second run
    assert not found[("fig11",)].moved and set(found[("dmove",)].moved) == {"a"}
    assert [ks for ks, _ in s.runs] == calls  # a regrade is not a run
    entry = readings.record(base, found[("similar",)].path, tmp_path / "ledger.json")
    assert entry.regraded and entry.runs == 1 and [d["claim"] for d in entry.differs] == ["b"]
    assert not readings.record(base, found[("dmove",)].path, tmp_path / "ledger.json").regraded
    # without a regrader every set is run
    run, calls = fake_notebook(tmp_path / "plain", {frozenset({"dmove"}): {"a"}})
    rs.screen(NB, ("fig11", "similar"), run, base=base, log=lambda _: None)
    assert calls == [("fig11", "similar")]
    assert rs.regrader("13_five_routers", tmp_path) is None  # no saved measurements to regrade


def test_graded_only_readings_are_picked_only_in_claims_modules() -> None:
    """A reading declared graded-only changes only a rule: picked in a claims module and
    nowhere else (not in a notebook, not in a kernel), and only for notebooks with a
    regrader; a reading picked only in claims modules is declared so."""
    import re

    from routelab.paths import notebooks_dir

    lib = Path(rs.__file__).parent
    where: dict[str, set[str]] = {}
    sources = [*lib.rglob("*.py"), *notebooks_dir().glob("*.ipynb")]
    for path in sources:
        for key in re.findall(r'(?:pick|is_flipped)\(\s*\\?"(\w+)\\?"', path.read_text()):
            where.setdefault(key, set()).add(path.name if path.suffix == ".py" else "notebook")
    assert {"similar", "fig11", "dmove", "basegrid"} <= set(where)  # the scan finds both kinds
    for key, flip in readings.FLIPS.items():
        in_claims = bool(where.get(key)) and where[key] <= {"claims.py"}
        assert flip.graded_only == in_claims, (key, where.get(key))
        if flip.graded_only:
            assert set(flip.notebooks) <= set(rs.REGRADERS), key
