"""``routelab s3tm route|match`` on a user's own files: the three-command path from tweets to
matches, and the matches equal a brute force (a subscription matches a post when all its
words are among the post's words)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from command_runner import run_command

pytestmark = pytest.mark.spark

WORDS = [
    "flu", "vaccine", "ebola", "outbreak", "hospital", "doctor", "measles", "virus",
    "clinic", "nurse", "fever", "cough", "health", "travel", "africa", "school",
]  # fmt: skip


def _tweets(tmp_path, n: int = 240, seed: int = 4):
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, len(WORDS) + 1)  # a skewed vocabulary: hot words exist
    rows = []
    for i in range(n):
        k = int(rng.integers(2, 6))
        words = rng.choice(WORDS, size=k, replace=False, p=weights / weights.sum())
        rows.append({"id": 1000 + i, "text": " ".join(words), "ts": 1_700_000_000 + 60 * i})
    path = tmp_path / "tweets.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _s3tm(*argv: str) -> int:
    return run_command("s3tm", ["s3tm", *argv])


def _brute(posts: pd.DataFrame, subs: pd.DataFrame) -> set[tuple[int, int]]:
    return {
        (int(p), int(s))
        for p, pw in zip(posts.post_id, posts.words, strict=True)
        for s, sw in zip(subs.sub_id, subs.words, strict=True)
        if len(sw) and set(sw) <= set(pw)
    }


@pytest.fixture(scope="module")
def posts_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("s3tm_cli")
    src = _tweets(tmp)
    out = tmp / "posts"
    code = _s3tm(
        "preprocess", "--input", str(src), "--input-format", "csv",
        "--time-col", "ts", "--time-format", "epoch_s", "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert code == 0
    return out


def _posts(spark, posts_dir) -> pd.DataFrame:
    from routelab.corpus.preprocess import read_posts

    frame = read_posts(spark, posts_dir).select("post_id", "words").toPandas()
    frame["words"] = frame["words"].map(list)
    return frame


def test_three_commands_from_tweets_to_matches(spark, posts_dir, tmp_path):
    from routelab.corpus.subscriptions import read_subscriptions

    subs_dir = tmp_path / "subs"
    assert _s3tm(
        "subscriptions", "--posts", str(posts_dir), "--kind", "tweet", "--n", "30",
        "--out", str(subs_dir), "--no-progress",
    ) == 0  # fmt: skip
    assert {"subscriptions.parquet", "summary.json", "bad_records.json"} <= {
        p.name for p in subs_dir.iterdir()
    }
    out = tmp_path / "matches"
    assert _s3tm(
        "match", "--posts", str(posts_dir), "--subscriptions", str(subs_dir),
        "--workers", "3", "--algorithm", "salb", "--out", str(out),
    ) == 0  # fmt: skip
    got = pd.read_csv(out / "matches.csv")
    assert list(got.columns) == ["post_id", "subscription_id"]
    truth = _brute(_posts(spark, posts_dir), read_subscriptions(subs_dir))
    assert set(map(tuple, got.to_numpy().tolist())) == truth and len(truth) >= 30
    workers = pd.read_csv(out / "workers.csv")
    assert workers["worker"].tolist() == [0, 1, 2]
    assert (
        workers["matches"].sum()
        == len(got) + json.loads((out / "summary.json").read_text())["counts"]["duplicates_removed"]
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mapping"] == "SALB" and summary["ordered_by_time"] is True
    assert summary["counts"]["posts"] == 240 and summary["routelab_version"]


@pytest.mark.parametrize("method,placement", [("SALB", "LASP"), ("hash", "random")])
def test_match_with_hot_words_split_equals_brute_force(
    spark, posts_dir, tmp_path, method, placement
):
    from routelab.corpus.subscriptions import write_subscriptions

    posts = _posts(spark, posts_dir)
    vocab = sorted({w for ws in posts.words for w in ws})
    rng = np.random.default_rng(9)
    lists = [[w] for w in vocab[:6]]  # single words, the hottest among them: multicast
    lists += [list(rng.choice(vocab, size=2, replace=False)) for _ in range(25)]
    lists += [["nowhere"], [vocab[0], "nowhere"]]  # words no post has
    subs = pd.DataFrame(
        {"sub_id": np.arange(len(lists)) * 7 + 3, "words": lists, "kind": "tweet", "topic": None}
    )
    write_subscriptions(subs, tmp_path / "subs")
    out = tmp_path / "m"
    assert _s3tm(
        "match", "--posts", str(posts_dir), "--subscriptions", str(tmp_path / "subs"),
        "--workers", "4", "--algorithm", method, "--placement", placement, "--split-hot",
        "--out", str(out), "--format", "parquet",
    ) == 0  # fmt: skip
    got = pd.read_parquet(out / "matches.parquet")
    assert set(map(tuple, got.to_numpy().tolist())) == _brute(posts, subs)
    assert not got.duplicated().any()


def test_route_writes_one_row_per_method_and_worker_count(spark, posts_dir, tmp_path, capsys):
    out = tmp_path / "route"
    assert _s3tm(
        "route", "--posts", str(posts_dir), "--workers", "2,4", "--algorithm", "hash,SALB,gC",
        "--out", str(out), "--format", "json",
    ) == 0  # fmt: skip
    rows = pd.DataFrame(json.loads((out / "results.json").read_text()))
    assert sorted(zip(rows.method, rows.workers, strict=True)) == [
        ("SALB", 2), ("SALB", 4), ("gC", 2), ("gC", 4), ("hash", 2), ("hash", 4)
    ]  # fmt: skip
    # Eq. 2: a routed post reaches between 1 and N matchers; Eq. 4: max/avg >= 1
    assert (rows.spread_routed >= 1).all() and (rows.spread_routed <= rows.workers).all()
    assert (rows.imbalance >= 1).all()
    assert np.allclose(rows[rows.method == "hash"].throughput_vs_hash, 1.0)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["learning_posts"] + summary["counts"]["held_out_posts"] == 240
    assert "throughput_vs_hash" in capsys.readouterr().out


def test_bad_options_fail_before_spark_work(posts_dir, tmp_path, capsys):
    common = ["--posts", str(posts_dir), "--out", str(tmp_path / "x")]
    assert _s3tm("route", *common, "--algorithm", "magic") == 2
    assert "unknown mapping method 'magic'; choose from hash, gC" in capsys.readouterr().out
    assert _s3tm("route", *common, "--workers", "0") == 2
    assert _s3tm("route", *common, "--learn-fraction", "1.5") == 2
    assert _s3tm("match", *common, "--subscriptions", "s", "--algorithm", "hash,SALB") == 2
    assert "this verb runs one mapping method, not 2" in capsys.readouterr().out
    assert _s3tm("match", *common, "--subscriptions", "s", "--workers", "2,3") == 2
    assert not (tmp_path / "x").exists()


def test_preprocess_keeps_the_users_ids(posts_dir, spark):
    """A CSV with an ``id`` column keeps those ids as post ids (so matches trace back to the
    user's tweets) without --id-col."""
    frame = _posts(spark, posts_dir)
    assert sorted(frame.post_id) == list(range(1000, 1240))
