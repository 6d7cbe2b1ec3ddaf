"""One output policy for every command, checked before Spark starts:
``--out`` naming a file is an error; a non-empty directory needs ``--overwrite``."""

from __future__ import annotations

import pytest
from command_runner import run_command

CASES = [
    ("preprocess", ["preprocess", "--input-format", "csv", "--input", "IN", "--out", "OUT"]),
    ("generate", ["generate", "tweets", "--n", "10", "--out", "OUT"]),
    ("generate", ["generate", "keys", "zipf", "--n", "10", "--n-keys", "5", "--out", "OUT"]),
    (
        "subscriptions",
        ["subscriptions", "--posts", "IN", "--kind", "tweet", "--n", "5", "--out", "OUT"],
    ),
]


def _argv(argv, tmp_path, out):
    return [str(tmp_path / "in.csv") if a == "IN" else str(out) if a == "OUT" else a for a in argv]


@pytest.mark.parametrize("module,argv", CASES)
def test_out_naming_a_file_or_a_full_directory_is_refused(module, argv, tmp_path, capsys):
    (tmp_path / "in.csv").write_text("text\nhello\n")
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    assert run_command(module, _argv(argv, tmp_path, a_file)) == 2
    assert "is an existing file" in capsys.readouterr().out
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("x")
    assert run_command(module, _argv(argv, tmp_path, full)) == 2
    assert "add --overwrite" in capsys.readouterr().out
    assert (full / "keep.txt").exists()


@pytest.mark.spark
def test_subscriptions_accept_the_folder_preprocess_writes(spark, tmp_path):
    from routelab.corpus.subscriptions import _spark_posts

    folder = tmp_path / "words"
    spark.createDataFrame(
        [(1, ["flu", "shot"]), (2, ["ebola"])], "post_id long, words array<string>"
    ).write.parquet(str(folder / "posts.parquet"))
    assert _spark_posts(folder, spark).count() == 2
