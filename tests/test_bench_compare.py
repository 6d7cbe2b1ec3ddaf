"""``routelab bench compare``: the ratio and flag logic on hand-made rounds, the history
line, benches new since REF, a bad REF, the worktree's clean-up, and one real run against
``HEAD~1`` on the quickest benchmark."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from routelab.benchcompare import (
    GONE,
    NEW,
    append_history,
    compare_figure,
    compare_rounds,
    figure_key,
    format_comparison,
    history_line,
    ref_worktree,
    resolve_ref,
    run_side,
)
from routelab.benchmarks import direction
from routelab.cli import build_parser, main, with_default_verb
from routelab.errors import BadInputError

ROOT = Path(__file__).resolve().parents[1]


# --- the ratio and the flag ----------------------------------------------------------------


def test_a_time_15_percent_slower_is_flagged():
    f = compare_figure([1.0, 1.0, 1.0], [1.15, 1.15, 1.15], "lower")
    assert f.ratio == pytest.approx(1.15) and f.slowdown == pytest.approx(1.15)
    assert f.flagged and f.verdict.startswith("SLOWER by 15 %")


def test_a_time_5_percent_slower_is_not_flagged():
    f = compare_figure([2.0, 2.0, 2.0], [2.1, 2.1, 2.1], "lower")
    assert f.ratio == pytest.approx(1.05)
    assert not f.flagged and f.verdict.startswith("same")


def test_a_faster_figure_is_not_flagged():
    time = compare_figure([1.0, 1.0], [0.5, 0.5], "lower")
    rate = compare_figure([100.0, 100.0], [200.0, 200.0], "higher")
    for f in (time, rate):
        assert not f.flagged and f.verdict.startswith("faster by 100 %")


def test_a_rate_15_percent_lower_is_flagged():
    f = compare_figure([1000.0] * 3, [850.0] * 3, "higher")
    assert f.ratio == pytest.approx(0.85)
    assert f.slowdown == pytest.approx(1 / 0.85) and f.flagged
    # the same 15 % gain is not
    assert not compare_figure([1000.0] * 3, [1150.0] * 3, "higher").flagged


def test_an_unknown_direction_is_compared_but_never_flagged():
    f = compare_figure([1.0], [3.0], None)
    assert f.ratio == pytest.approx(3.0) and not f.flagged
    assert f.verdict == "direction unknown"


def test_medians_and_the_paired_ratio_range_over_rounds():
    # REF 10, 12, 11 ms; HEAD 11, 12, 13.2 ms: medians 11 and 12, paired ratios 1.1, 1, 1.2
    f = compare_figure([10.0, 12.0, 11.0], [11.0, 12.0, 13.2], "lower")
    assert (f.ref_median, f.head_median) == (11.0, 12.0)
    assert f.ratio == pytest.approx(12 / 11)
    assert (f.ratio_min, f.ratio_max) == (pytest.approx(1.0), pytest.approx(1.2))
    # one noisy round does not move the median: HEAD 15 % slower, one round at 0.9
    g = compare_figure([1.0, 1.0, 1.0], [1.15, 0.9, 1.16], "lower")
    assert g.flagged and "rounds disagree" in g.verdict


def test_directions_from_units():
    assert direction("pubs/s") == direction("msg/s") == direction("x") == "higher"
    assert direction("ms") == direction("s") == direction("us") == direction("MB") == "lower"
    assert direction("cells") is None and direction(None) is None


def test_figure_keys_ignore_measured_numbers_in_parentheses():
    a = {"what": "counting, N=20,000: build (+ 0.3 s generation)"}
    b = {"what": "counting, N=20,000: build (+ 0.4 s generation)"}
    assert figure_key(a) == figure_key(b) == "counting, N=20,000: build"
    assert figure_key({"what": "x (y)", "key": "mine"}) == "mine"


# --- rounds as the subprocesses write them ----------------------------------------------------


def _rows(*pairs: tuple[str, float, str]) -> dict:
    return {
        "status": "ok",
        "rows": [{"bench": "b", "what": w, "value": v, "unit": u} for w, v, u in pairs],
    }


def test_rounds_compared_figure_by_figure_and_new_ones_have_no_baseline():
    rounds = []
    for i, (ref_ms, head_ms) in enumerate([(10.0, 11.6), (10.0, 11.5), (10.0, 11.4)], 1):
        rounds.append(
            {
                "round": i,
                "side": "ref",
                "benches": {
                    "old": _rows(("kernel (load 1.2)", ref_ms, "ms")),
                    "fresh": {"status": "missing"},
                },
            }
        )
        rounds.append(
            {
                "round": i,
                "side": "head",
                "benches": {
                    "old": _rows(
                        ("kernel (load 3.4)", head_ms, "ms"), ("added since", 5.0, "pubs/s")
                    ),
                    "fresh": _rows(("brand new", 7.0, "s")),
                },
            }
        )
    figures, problems = compare_rounds(rounds, ["old", "fresh"])
    by = {(f.bench, f.figure): f for f in figures}
    kernel = by[("old", "kernel")]
    assert kernel.ref_values == [10.0] * 3 and kernel.head_median == 11.5
    assert kernel.flagged and kernel.better == "lower"
    assert by[("old", "added since")].status == NEW
    assert by[("fresh", "brand new")].status == NEW and not by[("fresh", "brand new")].flagged
    assert problems == {"fresh": {"ref": NEW}}
    text = format_comparison(figures, problems)
    assert "SLOWER by 15 %" in text and NEW in text and "no such benchmark at REF" in text


def test_a_bench_failing_on_one_side_is_an_error_not_new():
    rounds = [
        {"round": 1, "side": "ref", "benches": {"b": {"status": "error", "error": "Boom: x"}}},
        {"round": 1, "side": "head", "benches": {"b": _rows(("k", 1.0, "s"))}},
    ]
    figures, problems = compare_rounds(rounds, ["b"])
    assert figures[0].status == "error at REF: Boom: x" and not figures[0].flagged
    assert GONE not in format_comparison(figures, problems)


# --- the history ------------------------------------------------------------------------------


def test_the_history_line(tmp_path):
    figures = [
        compare_figure([1.0, 1.1], [1.3, 1.2], "lower", bench="b", figure="k", unit="s"),
        compare_figure([], [2.0], "higher", bench="b", figure="new one", unit="msg/s"),
        compare_figure([float("nan")], [1.0], "lower", bench="b", figure="nan", unit="ms"),
    ]
    line = history_line(
        ref="HEAD~1",
        ref_commit="a" * 40,
        head_commit="b" * 40,
        head_dirty=True,
        figures=figures,
        rounds=2,
        quick=True,
        names=["b"],
        raw="compare-x.json",
    )
    path = tmp_path / "bench" / "history.jsonl"
    append_history(path, line)
    append_history(path, line)
    lines = path.read_text().splitlines()
    assert len(lines) == 2
    got = json.loads(lines[0])  # strict JSON: no NaN
    assert {"date", "machine", "ref", "head", "rounds", "quick", "benchmarks", "figures"} <= set(
        got
    )
    assert got["ref"] == {"name": "HEAD~1", "commit": "a" * 40}
    assert got["head"] == {"commit": "b" * 40, "dirty": True}
    assert got["machine"]["cpu_count"] and got["machine"]["platform"]
    first = got["figures"][0]
    assert first["ref_median"] == pytest.approx(1.05) and first["head_median"] == pytest.approx(
        1.25
    )
    assert first["ratio"] == pytest.approx(1.25 / 1.05) and first["flagged"] is True
    assert got["figures"][1]["status"] == NEW and got["figures"][1]["ratio"] is None
    assert got["figures"][2]["status"] == NEW  # a NaN REF value is no baseline


# --- REF, the worktree and the subprocess ----------------------------------------------------


def test_a_bad_ref_is_one_clear_error_naming_it(capsys):
    with pytest.raises(BadInputError, match="no-such-ref-9f3"):
        resolve_ref(ROOT, "no-such-ref-9f3")
    code = main(["bench", "compare", "--ref", "no-such-ref-9f3", "matching", "--rounds", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "no-such-ref-9f3" in err and "Traceback" not in err and "fatal" not in err
    assert main(["bench", "compare", "--ref", "HEAD", "nonesuch"]) == 2
    assert "unknown benchmark 'nonesuch'" in capsys.readouterr().err


def test_bench_without_a_verb_runs_run():
    parser = build_parser()
    assert with_default_verb(parser, ["bench"]) == ["bench", "run"]
    assert with_default_verb(parser, ["bench", "grouping", "--quick"]) == [
        "bench",
        "run",
        "grouping",
        "--quick",
    ]
    kept = [["bench", "compare", "--ref", "x"], ["bench", "--help"], ["figures", "--only", "01"]]
    for argv in kept:
        assert with_default_verb(parser, argv) == argv
    args = parser.parse_args(with_default_verb(parser, ["bench", "matching"]))
    assert args.verb == "run" and args.names == ["matching"]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def test_the_worktree_is_removed_on_an_interrupt(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "f.txt").write_text("x\n")
    _git(repo, "add", "f.txt")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    commit = resolve_ref(repo, "HEAD")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with pytest.raises(KeyboardInterrupt), ref_worktree(repo, commit, scratch) as tree:
        assert (tree / "f.txt").read_text() == "x\n"
        raise KeyboardInterrupt
    assert not tree.exists()
    assert str(tree) not in _git(repo, "worktree", "list")


def test_the_subprocess_reports_a_bench_its_tree_lacks(tmp_path):
    """Each side imports its own tree's routelab; a bench that tree lacks is ``missing``."""
    pkg = tmp_path / "tree" / "lib" / "routelab"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "benchmarks.py").write_text(
        "BENCHMARKS = {'toy': ('m', 'f', 'd')}\n"
        "def run_benchmarks(names, quick=False):\n"
        "    return [{'bench': 'toy', 'what': 'toy (q=%s)' % quick, 'value': 3.0, 'unit': 's'}]\n"
    )
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    got = run_side(
        tmp_path / "tree", ["toy", "matching"], quick=True, scratch=scratch, label="r1-ref"
    )
    assert got["routelab_file"].startswith(str(pkg))
    assert got["benches"]["matching"] == {"status": "missing"}
    assert got["benches"]["toy"]["status"] == "ok"
    assert got["benches"]["toy"]["rows"][0]["what"] == "toy (q=True)"


# --- one real run ------------------------------------------------------------------------------


def test_compare_against_the_previous_commit_end_to_end(tmp_path, capsys):
    """The quickest benchmark (matching, quick sizes, one round) on ``HEAD~1`` and the work
    tree: about a minute niced on a busy 2-core machine, most of it REF's numba compiles."""
    if subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", "HEAD~1^{commit}"],
        cwd=ROOT,
        capture_output=True,
    ).returncode:
        pytest.skip("no HEAD~1 (a shallow clone)")
    code = main(
        ["bench", "compare", "--ref", "HEAD~1", "matching", "--rounds", "1", "--quick"]
        + ["--out", str(tmp_path)]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "trie kernel matching" in out and "HEAD/REF" in out
    (raw,) = tmp_path.glob("compare-*.json")
    data = json.loads(raw.read_text())
    sides = [(r["round"], r["side"]) for r in data["raw_rounds"]]
    assert sides == [(1, "ref"), (1, "head")]
    files = {r["side"]: r["routelab_file"] for r in data["raw_rounds"]}
    assert files["head"] == str(ROOT / "lib" / "routelab" / "__init__.py")
    assert not files["ref"].startswith(str(ROOT / "lib"))  # REF ran its own code
    (line,) = (tmp_path / "history.jsonl").read_text().splitlines()
    hist = json.loads(line)
    assert hist["ref"]["commit"] == _git(ROOT, "rev-parse", "HEAD~1")
    assert hist["figures"] and all(f["status"] == "compared" for f in hist["figures"])
    assert "routelab-bench-compare" not in _git(ROOT, "worktree", "list")  # removed
    assert {r["python"] for r in data["raw_rounds"]} == {sys.version.split()[0]}


def test_make_clean_keeps_the_benchmark_history(tmp_path) -> None:
    """``make clean`` removes the notebook runs and their timing history, not
    ``papermill_runs/bench/`` (the speed record across commits)."""
    import shutil
    import subprocess
    from pathlib import Path

    if shutil.which("make") is None:
        pytest.skip("no make on this machine")
    root = Path(__file__).resolve().parents[1]
    shutil.copy(root / "Makefile", tmp_path / "Makefile")
    runs = tmp_path / "papermill_runs"
    for d in ("bench", "smoke", "default"):
        (runs / d).mkdir(parents=True)
    (runs / "bench" / "history.jsonl").write_text("{}\n")
    (runs / "smoke" / "01.ipynb").write_text("{}")
    (runs / "history.jsonl").write_text("{}\n")
    subprocess.run(["make", "-s", "clean"], cwd=tmp_path, check=True, capture_output=True)
    left = sorted(str(p.relative_to(tmp_path)) for p in runs.rglob("*"))
    assert left == ["papermill_runs/bench", "papermill_runs/bench/history.jsonl"]
