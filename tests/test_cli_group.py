"""``routelab group`` on hand-made key files whose imbalance can be computed by hand."""

from __future__ import annotations

import json

import pytest
from command_runner import run_command

pytestmark = pytest.mark.spark


def test_key_grouping_puts_one_hot_key_on_one_worker(spark, tmp_path, capsys):
    # 90 messages of key 7 and 10 of key 3 over 2 workers: KG sends each key to one worker.
    # If both keys hash to the same worker, the final imbalance I = max - avg = 100 - 50 = 50;
    # otherwise 90 - 50 = 40. SG alternates: loads 50/50, imbalance 0.
    (tmp_path / "keys.txt").write_text("7\n" * 90 + "3\n" * 10 + "\n")
    out = tmp_path / "r.json"
    code = run_command(
        "group",
        [
            "group",
            "--keys",
            str(tmp_path / "keys.txt"),
            "--schemes",
            "kg",
            "sg",
            "--workers",
            "2",
            "--out",
            str(out),
        ],
    )
    assert code == 0
    rows = {r["scheme"].split()[0]: r for r in json.loads(out.read_text())}
    assert rows["KG"]["messages"] == 100 and rows["KG"]["keys"] == 2
    assert rows["KG"]["final_imbalance"] in (40, 50)
    assert rows["SG"]["final_imbalance"] == 0
    assert rows["KG"]["memory_pairs"] == 2  # each key on one worker
    printed = capsys.readouterr().out
    assert "missing_key" in printed  # the trailing blank line is reported, not dropped silently


def test_csv_column_with_times_and_bad_arguments(spark, tmp_path):
    (tmp_path / "k.csv").write_text(
        "user,ts\nalice,2024-01-01T00:00:00\nbob,2024-01-01T00:00:01\nalice,2024-01-01T00:00:02\n"
    )
    args = [
        "group",
        "--keys",
        str(tmp_path / "k.csv"),
        "--key-col",
        "user",
        "--time-col",
        "ts",
        "--schemes",
        "fish",
        "pkg_local",
        "--workers",
        "2",
        "3",
    ]
    assert run_command("group", args) == 0
    assert run_command("group", [*args[:8], "magic"]) == 2  # --schemes magic
    assert run_command("group", [*args, "--out", str(tmp_path / "x.txt")]) == 2
    (tmp_path / "empty.txt").write_text("\n\n")
    assert run_command("group", ["group", "--keys", str(tmp_path / "empty.txt")]) == 2


def test_sources_from_a_column(spark, tmp_path):
    # two sources, each sending key 1 then key 2; PKG with local estimates per source
    rows = "\n".join(f"{k},{s}" for s in ("east", "west") for k in (1, 2, 1, 2))
    (tmp_path / "k.csv").write_text("key,src\n" + rows + "\n5,\n")
    out = tmp_path / "r.json"
    code = run_command(
        "group",
        [
            "group",
            "--keys",
            str(tmp_path / "k.csv"),
            "--key-col",
            "key",
            "--source-col",
            "src",
            "--schemes",
            "pkg_local",
            "--workers",
            "2",
            "--out",
            str(out),
        ],
    )
    assert code == 0
    (row,) = json.loads(out.read_text())
    assert row["sources"] == 2 and row["messages"] == 8  # the row without a source is dropped
