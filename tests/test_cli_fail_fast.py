"""Bad options and headers fail before Spark starts, naming the file and what it has."""

from __future__ import annotations

import pandas as pd
import pytest
from command_runner import run_command

from routelab.datasets.headers import columns, file_format, local_files, require_columns
from routelab.errors import BadInputError


@pytest.fixture(autouse=True)
def no_spark(monkeypatch):
    """Any command in these tests that starts Spark fails the test."""
    import routelab.spark

    def refuse(*args, **kwargs):
        raise AssertionError("Spark was started before the input was checked")

    monkeypatch.setattr(routelab.spark, "get_spark", refuse)


def test_grouping_names_the_missing_column(tmp_path, capsys):
    (tmp_path / "k.csv").write_text("user,ts\nalice,1\n")
    argv = ["grouping", "run", "--keys", str(tmp_path / "k.csv"), "--out", str(tmp_path / "o")]
    assert run_command("grouping", [*argv, "--key-col", "nope"]) == 2
    out = capsys.readouterr().out
    assert "k.csv:1: no column 'nope' (--key-col nope); its columns: user, ts" in out
    assert run_command("grouping", [*argv, "--key-col", "user", "--time-col", "when"]) == 2
    assert "no column 'when' (--time-col when)" in capsys.readouterr().out
    (tmp_path / "k.txt").write_text("1\n2\n")
    txt = ["grouping", "run", "--keys", str(tmp_path / "k.txt"), "--key-col", "user"]
    assert run_command("grouping", [*txt, "--out", str(tmp_path / "o")]) == 2
    assert "a text file has no columns" in capsys.readouterr().out
    missing = ["grouping", "run", "--keys", str(tmp_path / "none.csv"), "--out", str(tmp_path)]
    assert run_command("grouping", missing) == 2
    assert "none.csv: no such file or directory" in capsys.readouterr().out
    assert not (tmp_path / "o").exists()


def test_preprocess_checks_columns_and_paths(tmp_path, capsys):
    (tmp_path / "p.csv").write_text("id,body\n1,flu\n")
    argv = ["preprocess", "--input", str(tmp_path / "p.csv"), "--input-format", "csv"]
    assert run_command("preprocess", [*argv, "--out", str(tmp_path / "o")]) == 2
    assert "no column 'text' (--text-col text); its columns: id, body" in capsys.readouterr().out
    pd.DataFrame({"body": ["flu"], "when": [1]}).to_parquet(tmp_path / "p.parquet")
    pq = ["preprocess", "--input", str(tmp_path / "p.parquet"), "--input-format", "parquet"]
    assert run_command("preprocess", [*pq, "--text-col", "body", "--time-col", "ts",
                                      "--out", str(tmp_path / "o")]) == 2  # fmt: skip
    assert "no column 'ts' (--time-col ts); its columns: body, when" in capsys.readouterr().out
    js = ["preprocess", "--input", str(tmp_path / "x.json"), "--input-format", "twitter-json"]
    assert run_command("preprocess", [*js, "--out", str(tmp_path / "o")]) == 2
    assert "x.json: no such file or directory" in capsys.readouterr().out


def test_s3tm_verbs_check_the_posts_folder(tmp_path, capsys):
    from routelab.corpus.subscriptions import write_subscriptions

    folder = tmp_path / "posts" / "posts.parquet"
    folder.mkdir(parents=True)
    pd.DataFrame({"post_id": [1], "text": ["flu"]}).to_parquet(folder / "part-0.parquet")
    base = ["--posts", str(tmp_path / "posts"), "--out", str(tmp_path / "o")]
    for verb in (["route"], ["stats"], ["subscriptions", "--kind", "tweet", "--n", "1"]):
        assert run_command("s3tm", ["s3tm", *verb, *base]) == 2, verb
        assert "no column 'words' (--posts (word sets) words)" in capsys.readouterr().out
    pd.DataFrame({"post_id": [1], "words": [["flu"]]}).to_parquet(folder / "part-0.parquet")
    subs = ["--subscriptions", str(tmp_path / "subs")]
    assert run_command("s3tm", ["s3tm", "match", *base, *subs]) == 2
    assert "subs: no such file or directory" in capsys.readouterr().out
    write_subscriptions(
        pd.DataFrame({"sub_id": [1], "words": [["flu"]], "kind": "tweet", "topic": None}),
        tmp_path / "subs",
    )
    with pytest.raises(AssertionError, match="Spark was started"):  # all checks passed
        run_command("s3tm", ["s3tm", "match", *base, *subs])


def test_headers_helpers(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "_SUCCESS").write_text("")
    (tmp_path / "d" / "a.tsv").write_text("k\tt\n1\t2\n")
    (files,) = [local_files(tmp_path / "d")]
    assert [f.name for f in files] == ["a.tsv"] and file_format(files[0]) == "tsv"
    assert columns(files[0], "tsv") == ["k", "t"]
    require_columns(tmp_path / "d", None, {"--key-col": "k", "--time-col": None})
    with pytest.raises(BadInputError, match="no column 'x'"):
        require_columns(tmp_path / "d" / "*.tsv", None, {"--key-col": "x"})
    assert local_files("hdfs://namenode/keys.csv") is None  # left to Spark
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(BadInputError, match="no records at all"):
        require_columns(tmp_path / "empty.csv", None, {"--key-col": "k"})


def test_review_findings_fail_fast_and_clearly(tmp_path, capsys):
    """What a newcomer met: a CSV key stream without --key-col names the option; an S3-TM
    folder of the wrong kind says what was expected; a matcher given two methods says it
    runs one."""
    (tmp_path / "k.csv").write_text("user\nalice\n")
    assert run_command("grouping", ["grouping", "run", "--keys", str(tmp_path / "k.csv"),
                                    "--out", str(tmp_path / "o")]) == 2  # fmt: skip
    assert "needs --key-col" in capsys.readouterr().out
    wrong = tmp_path / "posts"
    wrong.mkdir()
    (wrong / "summary.json").write_text("{}")
    argv = ["s3tm", "stats", "--posts", str(wrong), "--out", str(tmp_path / "o")]
    assert run_command("s3tm", argv) == 2
    out = capsys.readouterr().out
    assert "no posts.parquet here" in out and "routelab s3tm preprocess" in out
    argv = ["spatial", "match", "--objects", "o.csv", "--queries", "q.csv", "--out",
            str(tmp_path / "o"), "--algorithm", "grid,hybrid"]  # fmt: skip
    assert run_command("spatial", argv) == 2
    assert "this verb runs one partitioner, not 2" in capsys.readouterr().out


def test_an_unparseable_time_names_the_formats_tried():
    from routelab.datasets.loaders.values import RecordError, parse_time

    with pytest.raises(RecordError) as exc:
        parse_time("notatime")
    assert "none of the automatic formats fits" in str(exc.value.args)


def test_a_closed_pipe_ends_quietly() -> None:
    """`routelab claims | head`: when the reader closes the pipe, the verb stops with the
    shell's status for SIGPIPE (141) and no traceback."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from routelab import cli\n"
        "def boom(args):\n"
        "    raise BrokenPipeError(32, 'Broken pipe')\n"
        "parser = cli.build_parser()\n"
        "cli.build_parser = lambda: parser\n"
        "args = parser.parse_args(['claims'])\n"
        "parser.set_defaults(func=boom)\n"
        "for action in parser._subparsers._group_actions:\n"
        "    for sub in action.choices.values():\n"
        "        sub.set_defaults(func=boom)\n"
        "sys.exit(cli.main(['claims']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr
