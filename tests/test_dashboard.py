"""The reviewers' page and the terminal claims table, on hand-made results."""

from __future__ import annotations

import json

import pytest

from routelab.dashboard import (
    claims_frame,
    format_claims,
    last_runs,
    load_results,
    render_index,
    summary_lines,
    write_index,
)


def _row(claim, verdict, kind="claim", **extra):
    return {
        "claim": claim,
        "paper": "Sect. 6",
        "paper_value": "2.56x",
        "measured": "1.3x",
        "verdict": verdict,
        "rule": "holds if within 1.5x",
        "note": "a | pipe",
        "kind": kind,
        **extra,
    }


@pytest.fixture
def figures(tmp_path):
    root = tmp_path / "figures"
    (root / "01_a").mkdir(parents=True)
    (root / "02_b").mkdir()
    (root / "01_a" / "results.json").write_text(
        json.dumps(
            {
                "notebook": "01_a",
                "profile": "default",
                "git_commit": "abc1234",
                "generated_at": "2026-11-25T00:00:00+00:00",
                "figures": [
                    {
                        "name": "fig3",
                        "data": "real: tweets",
                        "caption": "Fig. 3",
                        "files": ["fig3.html", "fig3.png", "fig3.svg"],
                    }
                ],
                "claims": [
                    _row("faster", "holds", timing=True, repeats=9),
                    _row("smaller", "direction only"),
                    _row("zipf", "holds", kind="check"),
                ],
            }
        )
    )
    # a results.json written before the verdict schema: boolean holds
    (root / "02_b" / "results.json").write_text(
        json.dumps(
            {
                "notebook": "02_b",
                "profile": "smoke",
                "figures": [],
                "claims": [
                    {"claim": "old", "paper": "p", "measured": "m", "holds": False, "note": ""}
                ],
            }
        )
    )
    runs = tmp_path / "runs"
    runs.mkdir()
    log = {"profile": "default", "runs": [{"notebook": "01_a", "status": "ok", "seconds": 12.5}]}
    later = {"profile": "smoke", "runs": [{"notebook": "01_a", "status": "failed", "seconds": 3}]}
    (runs / "history.jsonl").write_text(json.dumps(log) + "\n" + json.dumps(later) + "\n")
    return root, runs


def test_results_are_read_and_old_rows_mapped_to_verdicts(figures):
    root, _ = figures
    results = load_results(root)
    assert [r["notebook"] for r in results] == ["01_a", "02_b"]
    old = results[1]["claims"][0]
    assert old["verdict"] == "fails" and old["kind"] == "claim" and old["paper_value"] == ""
    frame = claims_frame(results)
    assert list(frame["verdict"]) == ["holds", "direction only", "holds", "fails"]


def test_last_run_wins(figures):
    _, runs = figures
    assert last_runs(runs)["01_a"] == {
        "status": "failed",
        "seconds": 3,
        "profile": "smoke",
        "started_at": None,
    }


def test_summary_counts_claims_not_checks(figures):
    root, runs = figures
    lines = summary_lines(load_results(root), last_runs(runs))
    assert lines[0].split()[:2] == ["01_a", "failed"]
    assert lines[0].endswith("claims 1/2 hold (1 direction only)")
    assert lines[1].split()[1:3] == ["not", "run"] and lines[1].endswith(
        "claims 0/1 hold (1 fails)"
    )


def test_formats(figures):
    root, _ = figures
    frame = claims_frame(load_results(root))
    md = format_claims(frame, "markdown").splitlines()
    assert md[0].startswith("| notebook | claim | paper | paper_value | measured | verdict")
    assert md[2] == (
        "| 01_a | faster | Sect. 6 | 2.56x | 1.3x | holds | holds if within 1.5x | a \\| pipe |"
    )
    assert json.loads(format_claims(frame, "json"))[1]["verdict"] == "direction only"
    assert "direction only" in format_claims(frame, "text")
    with pytest.raises(ValueError, match="unknown format"):
        format_claims(frame, "xml")


def test_index_page_has_summary_tables_and_linked_thumbnails(figures):
    root, runs = figures
    page = render_index(load_results(root), last_runs(runs))
    assert "<a href='01_a/fig3.html'><img src='01_a/fig3.png'" in page
    assert "real: tweets" in page and "abc1234" in page
    assert page.count("class='routelab-claims'") == 2
    assert "1/2 hold (1 direction only)" in page and "1/1 hold" in page  # claims vs checks
    assert "a | pipe" in page
    path = write_index(root, runs)
    assert path == root / "index.html" and path.read_text().startswith("<!DOCTYPE html>")


def test_text_blocks_fit_the_terminal_and_read_each_rule_once(figures, monkeypatch):
    from routelab.dashboard import compact_rule

    root, _ = figures
    frame = claims_frame(load_results(root))
    frame.loc[0, "measured"] = "a long measurement " * 25  # 475 characters
    frame.loc[0, "rule"] = "; ".join(["holds if above 1"] * 8 + ["fails if below 0.5"])
    monkeypatch.setenv("COLUMNS", "60")
    text = format_claims(frame, "text")
    lines = text.splitlines()
    assert lines and max(map(len, lines)) <= 60
    assert all(not ln.startswith(" " * 16) for ln in lines)  # left-aligned, no right padding
    block = text.split("[holds] faster")[1].split("[direction only]")[0]
    for label in ("paper ", "paper value", "ours", "rule", "note"):
        assert f"  {label}" in block, label
    assert block.count("holds if above 1") == 1 and "(8 parts)" in block
    assert "  repeats      9 repeated measurements (timings)" in block
    assert "repeats" not in text.split("[direction only]")[1].split("[")[0]  # single values
    assert compact_rule("a; b; a") == "a (2 parts); b"
    assert max(map(len, format_claims(frame, "text", width=100).splitlines())) <= 100


def test_rows_beyond_the_paper_are_shown_apart_and_never_counted(figures):
    from routelab.dashboard import format_table, paper_table

    root, runs = figures
    data = json.loads((root / "01_a" / "results.json").read_text())
    data["claims"] += [_row("on spark", "holds", kind="beyond"), _row("x", "inconclusive")]
    (root / "01_a" / "results.json").write_text(json.dumps(data))
    (root / "13_c").mkdir()
    (root / "13_c" / "results.json").write_text(json.dumps(
        {"notebook": "13_c", "figures": [], "claims": [_row("routers", "fails", kind="beyond")]}))  # fmt: skip
    results = load_results(root)
    table = paper_table(results).set_index("paper")
    s3 = table.loc["S3-TM"]  # 01 and 02 are S3-TM's notebooks
    # 01: holds, direction only, inconclusive; 02: one old row read as fails
    assert (s3.holds, s3["direction only"], s3.inconclusive, s3.fails) == (1, 1, 1, 1)
    assert s3.claims == 4 and s3.beyond == "1/1 hold" and s3.checks == 1
    assert table.loc["beyond the papers"].claims == 0
    assert table.loc["beyond the papers"].beyond == "0/1 hold (1 fails)"
    line = next(x for x in summary_lines(results, last_runs(runs)) if x.startswith("01_a"))
    assert "claims 1/3 hold" in line and "beyond the paper 1/1 hold" in line
    page = render_index(results, last_runs(runs))
    assert "beyond the paper" in page and "Per paper" in page and "inconclusive" in page
    md = format_table(paper_table(results), "markdown")
    assert md.splitlines()[0].startswith("| paper | holds | direction only |")
