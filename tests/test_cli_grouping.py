"""``routelab grouping run`` on hand-made key files whose imbalance can be computed by hand."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from command_runner import run_command

pytestmark = pytest.mark.spark


def _run(*argv: str) -> int:
    return run_command("grouping", ["grouping", "run", *argv])


def test_key_grouping_puts_one_hot_key_on_one_worker(spark, tmp_path, capsys):
    # 90 messages of key 7 and 10 of key 3 over 2 workers: KG sends each key to one worker.
    # If both keys hash to the same worker, the final imbalance I = max - avg = 100 - 50 = 50;
    # otherwise 90 - 50 = 40. SG alternates: loads 50/50, imbalance 0.
    (tmp_path / "keys.txt").write_text("7\n" * 90 + "3\n" * 10 + "\n")
    out = tmp_path / "r"
    code = _run(
        "--keys", str(tmp_path / "keys.txt"), "--algorithm", "kg,sg", "--workers", "2",
        "--out", str(out), "--format", "json",
    )  # fmt: skip
    assert code == 0
    rows = {r["scheme"]: r for r in json.loads((out / "results.json").read_text())}
    assert rows["kg"]["messages"] == 100 and rows["kg"]["keys"] == 2
    assert rows["kg"]["final_imbalance"] in (40, 50)
    assert rows["sg"]["final_imbalance"] == 0
    assert rows["kg"]["memory_pairs"] == 2  # each key on one worker
    printed = capsys.readouterr().out
    assert "missing_key" in printed  # the trailing blank line is reported, not dropped silently
    bad = json.loads((out / "bad_records.json").read_text())
    assert bad["counts"] == {"missing_key": 1}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["messages"] == 100 and summary["parameters"]["algorithm"] == "kg,sg"


def test_csv_column_with_times_and_bad_arguments(spark, tmp_path):
    (tmp_path / "k.csv").write_text(
        "user,ts\nalice,2024-01-01T00:00:00\nbob,2024-01-01T00:00:01\nalice,2024-01-01T00:00:02\n"
    )
    args = [
        "--keys", str(tmp_path / "k.csv"), "--key-col", "user", "--time-col", "ts",
        "--algorithm", "fish,pkg_local", "--workers", "2,3",
    ]  # fmt: skip
    assert _run(*args, "--out", str(tmp_path / "ok")) == 0
    table = pd.read_csv(tmp_path / "ok" / "results.csv")
    assert sorted(zip(table.scheme, table.workers, strict=True)) == [
        ("fish", 2), ("fish", 3), ("pkg_local", 2), ("pkg_local", 3)
    ]  # fmt: skip
    assert _run(*args[:7], "magic", "--out", str(tmp_path / "m")) == 2  # --algorithm magic
    assert _run(*args, "--workers", "0", "--out", str(tmp_path / "w")) == 2
    (tmp_path / "x.txt").write_text("a file")
    assert _run(*args, "--out", str(tmp_path / "x.txt")) == 2  # --out names a file
    assert _run(*args, "--out", str(tmp_path / "ok")) == 2  # exists, no --overwrite
    assert _run(*args, "--out", str(tmp_path / "ok"), "--overwrite") == 0
    (tmp_path / "empty.txt").write_text("\n\n")
    assert _run("--keys", str(tmp_path / "empty.txt"), "--out", str(tmp_path / "e")) == 2


def test_sources_from_a_column(spark, tmp_path):
    # two sources, each sending key 1 then key 2; PKG with local estimates per source
    rows = "\n".join(f"{k},{s}" for s in ("east", "west") for k in (1, 2, 1, 2))
    (tmp_path / "k.csv").write_text("key,src\n" + rows + "\n5,\n")
    out = tmp_path / "r"
    code = _run(
        "--keys", str(tmp_path / "k.csv"), "--key-col", "key", "--source-col", "src",
        "--algorithm", "pkg_local", "--workers", "2", "--out", str(out), "--format", "parquet",
    )  # fmt: skip
    assert code == 0
    (row,) = pd.read_parquet(out / "results.parquet").to_dict(orient="records")
    assert row["sources"] == 2 and row["messages"] == 8  # the row without a source is dropped
