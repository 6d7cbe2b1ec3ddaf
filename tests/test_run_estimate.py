"""`routelab figures` says before each notebook how long is left, from the times the same
notebooks took under the same profile on this machine (papermill_runs/history.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

from routelab.runs import last_seconds, remaining_estimate


def _history(path: Path) -> Path:
    def run(name: str, seconds: float, status: str = "ok") -> dict:
        return {"notebook": name, "status": status, "seconds": seconds}

    lines = [
        {"profile": "default", "runs": [run("10_fabret_adaptivity", 900.0),
                                        run("11_ps2stream_partitioning", 1364.0)]},
        {"profile": "smoke", "runs": [run("10_fabret_adaptivity", 71.0)]},
        {"profile": "default", "runs": [run("10_fabret_adaptivity", 600.0),  # the latest wins
                                        run("12_ps2stream_adjustment", 5.0, "failed")]},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n")
    return path


def test_the_latest_successful_run_per_notebook_and_profile(tmp_path):
    history = _history(tmp_path / "history.jsonl")
    assert last_seconds("default", history) == {
        "10_fabret_adaptivity": 600.0,
        "11_ps2stream_partitioning": 1364.0,
    }
    assert last_seconds("smoke", history) == {"10_fabret_adaptivity": 71.0}
    assert last_seconds("paper", history) == {}
    assert last_seconds("default", tmp_path / "missing.jsonl") == {}


def test_the_estimate_sums_what_is_left_and_names_the_unknown(tmp_path):
    history = _history(tmp_path / "history.jsonl")
    books = ["10_fabret_adaptivity", "11_ps2stream_partitioning", "12_ps2stream_adjustment"]
    text = remaining_estimate(books, "default", history)
    assert text == (
        "about 33 min left for 2 notebooks (by their last default runs on this machine), "
        "plus 12_ps2stream_adjustment (never run here)"
    )
    assert remaining_estimate(books[1:2], "default", history).startswith(
        "about 23 min left for 1 notebook "
    )
    assert remaining_estimate(books[:1], "smoke", history).startswith("about 1 min left")
    assert remaining_estimate(books, "paper", history) is None  # nothing known: no promise
    long = tmp_path / "long.jsonl"
    long.write_text(json.dumps({"profile": "default", "runs": [
        {"notebook": "11", "status": "ok", "seconds": 5_348.0}]}) + "\n")  # fmt: skip
    assert remaining_estimate(["11"], "default", long).startswith("about 1 h 29 min left")
