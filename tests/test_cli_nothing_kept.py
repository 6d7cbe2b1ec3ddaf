"""Zero kept records of an input is an error naming the likely cause."""

from __future__ import annotations

import pandas as pd
import pytest
from command_runner import run_command

from routelab.datasets.sniff import sniff


def test_sniff_tells_formats_apart(tmp_path):
    (tmp_path / "a.csv").write_text("id,text\n1,hi\n")
    (tmp_path / "a.tsv").write_text("id\ttext\n1\thi\n")
    (tmp_path / "a.json").write_text('{"text": "hi"}\n')
    (tmp_path / "a.txt").write_text("just words\n")
    (tmp_path / "empty.txt").write_text("")
    pd.DataFrame({"text": ["hi"]}).to_parquet(tmp_path / "a.parquet")
    assert sniff(str(tmp_path / "a.csv")) == "csv"
    assert sniff(str(tmp_path / "a.tsv")) == "tsv"
    assert sniff(str(tmp_path / "a.json")) == "json"
    assert sniff(str(tmp_path / "a.txt")) == "text"
    assert sniff(str(tmp_path / "empty.txt")) == "empty"
    assert sniff(str(tmp_path / "a.parquet")) == "parquet"
    assert sniff(str(tmp_path / "nope")) is None


@pytest.mark.spark
@pytest.mark.parametrize(
    "name,content,fmt,message",
    [
        ("empty.csv", "", "csv", "no records at all"),
        (
            "posts.csv",
            "id,text\n1,flu shots today\n2,ebola news\n",
            "twitter-json",
            "this looks like csv, not twitter-json; try --input-format csv",
        ),
        ("ints.parquet", None, "parquet", "usable text in column 'text'"),
    ],
)
def test_preprocess_refuses_an_input_it_keeps_nothing_of(
    spark, tmp_path, capsys, name, content, fmt, message
):
    path = tmp_path / name
    if content is None:
        pd.DataFrame({"text": [1, 2, 3]}).to_parquet(path)
    else:
        path.write_text(content)
    code = run_command(
        "preprocess",
        ["preprocess", "--input", str(path), "--input-format", fmt, "--out", str(tmp_path / "out")],
    )
    assert code == 2
    assert message in capsys.readouterr().out
