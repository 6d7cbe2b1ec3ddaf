"""``routelab compare run``: the five papers' routers on a user's own posts and interests.

The hand example (``POSTS``/``INTERESTS``), computed by hand in the comments: each
system's answer, the bad records, the errors; then random inputs against brute force.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from routelab.cli import main

POSTS = """id,text,lat,lon,ts,author
1,flu vaccine shots today #health,40.7,-74.0,1600000000,alice
2,Coffee and vaccines #morning,34.0,-118.2,1600003600,bob
3,the flu is bad,41.8,-87.6,1600007200,alice
4,vaccine flu clinic open #health,40.8,-73.9,1600010800,carol
5,coffee coffee coffee,47.6,-122.3,1600014400,bob
6,flu season vaccine drive,33.7,-84.4,1600018000,dave
7,new coffee shop #morning,40.7,-74.1,1600021600,alice
8,vaccine news,29.7,-95.4,1600025200,erin
"""
INTERESTS = """id,keywords,min_lat,min_lon,max_lat,max_lon,hour_lo,hour_hi
10,flu AND vaccine,39,-76,42,-72,0,23
11,coffee,30,-125,50,-70,,
12,vaccine,25,-100,45,-80,12,20
13,flu OR coffee,25,-100,45,-80,,
14,vaccine,25,-100,45,-80,5,2O
"""
# by hand (stems: vaccin, coffe):
# S3-TM, words only: 10 = {flu, vaccin} in posts 1, 4, 6; 11 = {coffe} in 2, 5, 7;
# 12 = {vaccin} in 1, 2, 4, 6, 8.
S3TM = {(1, 10), (4, 10), (6, 10), (2, 11), (5, 11), (7, 11),
        (1, 12), (2, 12), (4, 12), (6, 12), (8, 12)}  # fmt: skip
# PS2Stream adds the rectangle: 10 (lat 39..42, lon -76..-72) keeps 1 and 4 (6 is at
# Atlanta); 11 (the whole country) keeps 2, 5, 7; 12 (lat 25..45, lon -100..-80) keeps 6
# (33.7, -84.4) and 8 (29.7, -95.4) only.
PS2STREAM = {(1, 10), (4, 10), (2, 11), (5, 11), (7, 11), (6, 12), (8, 12)}
# Fabret: topic = the interest holding the largest share of the post's words. Posts 1, 4,
# 6 hold all of 10's words (share 1, 2 words) -> topic 10; 8 holds all of 12's and half of
# 10's -> 12; 2 holds all of 11's and of 12's (one word each) -> the first, 11. Regions:
# the posts' box (lon -122.3..-73.9, lat 29.7..47.6) cut 10 x 10: 1 and 4 lie in 10's
# centre's region (lon -74 -> column 9, lat 40.5 -> row 6); 6 does not (column 7, row 2).
# 12's centre (-90, 35) is column 6, row 2; post 8 is column 5: no match. 11's centre
# (-97.5, 40) is column 5, row 5; 2, 5 and 7 lie elsewhere. So Fabret answers 1 and 4.
FABRET = {(1, 10), (4, 10)}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    posts, interests = tmp_path / "posts.csv", tmp_path / "interests.csv"
    posts.write_text(POSTS)
    interests.write_text(INTERESTS)
    return posts, interests


def _run(posts: Path, interests: Path, out: Path, *extra: str) -> int:
    argv = ["compare", "run", "--posts", str(posts), "--interests", str(interests),
            "--windows", "4", "--train-windows", "2", "--out", str(out), *extra]  # fmt: skip
    return main(argv)


def _answers(out: Path) -> dict[str, set[tuple[int, int]]]:
    m = pd.read_csv(out / "matches.csv")
    return {s: set(map(tuple, g[["post_id", "interest_id"]].to_numpy().tolist()))
            for s, g in m.groupby("system")}  # fmt: skip


def test_hand_example_each_system_answers_as_computed_by_hand(files, tmp_path, capsys):
    out = tmp_path / "out"
    assert _run(*files, out, "--workers", "2,3") == 0
    answers = _answers(out)
    assert answers == {"S3-TM": S3TM, "PS2Stream": PS2STREAM, "Fabret": FABRET}
    results = pd.read_csv(out / "results.csv")
    assert len(results) == 15 * 2  # every router at both counts
    assert set(results.system) == {"S3-TM", "key grouping", "PS2Stream", "Fabret"}
    # each system's answer size on every one of its rows
    for system, pairs in answers.items():
        assert (results.loc[results.system == system, "matches"] == len(pairs)).all()
    # invariants: max / mean >= 1, and the busiest worker carries at least the mean
    # tuples x replication / N, so throughput_x <= N / replication (Fabret sends a post
    # no partition can match nowhere: replication 3 / 8, throughput_x 8 / 3 at N = 2)
    assert (results.imbalance >= 1 - 1e-9).all()
    # (key grouping's "replication" is workers per key; each message goes to one worker)
    copies = results.replication.where(results.system != "key grouping", 1.0)
    assert (results.throughput_x <= results.n_workers / copies + 1e-9).all()
    fabret = results[(results.system == "Fabret") & (results.n_workers == 2)]
    assert np.allclose(fabret.replication, 3 / 8) and np.allclose(fabret.throughput_x, 8 / 3)
    # key grouping: 8 authors + 4 hashtags (posts 1, 2, 4, 7) = 12 messages; kg sends each
    # key to one worker
    kg = results[results.system == "key grouping"]
    assert (kg.tuples == 12).all()
    assert (kg.loc[kg.router == "kg", "replication"] == 1).all()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["posts"] == 8 and summary["counts"]["interests"] == 3
    assert summary["counts"]["key_messages"] == 12
    assert summary["parameters"]["workers"] == [2, 3]
    bad = json.loads((out / "bad_records.json").read_text())
    assert bad["counts"] == {"or_keywords": 1, "bad_hours": 1}
    assert bad["examples"]["or_keywords"][0]["line"] == 5
    assert bad["examples"]["bad_hours"][0]["line"] == 6
    assert "2O" in bad["examples"]["bad_hours"][0]["excerpt"]
    assert "highest throughput_x per system" in capsys.readouterr().out


def test_every_router_of_a_system_gives_the_systems_answer(files):
    """The answer does not depend on the router: S3-TM's and PS2Stream's through each of
    their routers, Fabret's through each matcher."""
    from routelab.badrecords import BadRecordReport
    from routelab.compare.routers import fabret_pairs, s3tm_pairs, spatial_pairs
    from routelab.compare.user import read_user_compare

    data = read_user_compare(*files, BadRecordReport(), windows=4)
    pid, iid = data.post_ids.astype(int), data.interest_ids.astype(int)

    def ids(pairs):
        return {(pid[p], iid[s]) for s, p in pairs}

    for r in ("hash", "SALB"):
        assert ids(s3tm_pairs(r, 3, data.stream, data.interests, 2)) == S3TM, r
    for r in ("grid", "kd-tree", "frequency", "metric", "hybrid"):
        got = spatial_pairs(r, 3, data.stream, data.interests, 2, region=True, g=64)
        assert ids(got) == PS2STREAM, r
    for r in ("counting", "propagation", "static"):
        assert ids(fabret_pairs(r, 3, data.stream, data.interests, 2)) == FABRET, r


def _refused(capsys, pattern: str, *argv) -> None:
    """The command exits 2 with one line naming the problem (no traceback)."""
    import re

    assert _run(*argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("routelab compare run: error:") and "Traceback" not in err
    assert re.search(pattern, err), err


def test_bad_input_is_named(tmp_path, files, capsys):
    posts, interests = files
    no_ts = tmp_path / "no_ts.csv"
    no_ts.write_text("id,text,lat,lon\n1,flu,40,-74\n")
    _refused(capsys, r"no_ts.csv: missing column\(s\) ts", no_ts, interests, tmp_path / "a")
    timed = tmp_path / "timed.csv"
    timed.write_text("id,keywords,min_lat,min_lon,max_lat,max_lon,insert\n1,flu,0,0,1,1,5\n")
    _refused(capsys, "timed.csv: column.s. insert: .*standing ones", posts, timed, tmp_path / "b")
    all_or = tmp_path / "or.csv"
    all_or.write_text("id,keywords,min_lat,min_lon,max_lat,max_lon\n1,flu OR coffee,0,0,1,1\n")
    _refused(capsys, "or.csv: no usable interest.*1 or_keywords", posts, all_or, tmp_path / "c")
    _refused(capsys, "8 usable posts cannot fill --windows 20", posts, interests,
             tmp_path / "d", "--windows", "20")  # fmt: skip
    _refused(capsys, "train-windows", posts, interests, tmp_path / "e", "--train-windows", "4")
    _refused(capsys, "unknown router 'pkg'", posts, interests, tmp_path / "f", "--algorithm", "pkg")


def test_without_authors_or_hashtags_key_grouping_is_skipped_and_said(tmp_path, capsys):
    posts = tmp_path / "p.csv"
    posts.write_text("id,text,lat,lon,ts\n" + "".join(
        f"{i},flu vaccine {i},{40 + i / 10},-74,{1600000000 + 60 * i}\n" for i in range(8)))  # fmt: skip
    interests = tmp_path / "i.csv"
    interests.write_text("id,keywords,min_lat,min_lon,max_lat,max_lon\n1,flu,30,-80,50,-70\n")
    out = tmp_path / "out"
    assert _run(posts, interests, out, "--algorithm", "kg,hash") == 0
    assert "key grouping skipped" in capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert summary["skipped"] == ["kg"] and summary["routers"] == ["hash"]
    assert _answers(out)["S3-TM"] == {(i, 1) for i in range(8)}


def test_interest_topics_share_then_size_then_first():
    from routelab.compare.user import interest_topics

    interests = [["flu", "vaccin"], ["coffe"], ["vaccin"]]
    posts = [["flu", "vaccin", "shot"], ["vaccin", "news"], ["coffe", "vaccin"], ["rain"], []]
    # share: post 0 holds 1.0 of 0 (2 words) and 1.0 of 2 (1 word) -> 0; post 1: 0.5 of 0,
    # 1.0 of 2 -> 2; post 2: 1.0 of 1 and of 2, one word each -> the first, 1; none -> -1
    assert interest_topics(posts, interests).tolist() == [0, 2, 1, -1, -1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_streams_match_the_brute_force(tmp_path, seed):
    """Random posts and interests: each system's answer equals a brute force written here
    (S3-TM: words contained; PS2Stream: and the point in the rectangle, bounds included;
    Fabret: the predicates over the attributes, through the filtering oracle)."""
    from routelab.badrecords import BadRecordReport
    from routelab.compare.interests import post_events, predicate_subscriptions
    from routelab.compare.user import read_user_compare
    from routelab.filtering.oracle import oracle_match

    rng = np.random.default_rng(seed)
    vocab = ["flu", "rain", "coffee", "train", "music", "storm", "garden", "market"]
    n_posts, n_int = 120, 15
    lat, lon = rng.uniform(30, 45, n_posts).round(3), rng.uniform(-100, -75, n_posts).round(3)
    texts = [" ".join(rng.choice(vocab, rng.integers(1, 5))) for _ in range(n_posts)]
    posts = pd.DataFrame({"id": np.arange(n_posts) * 7 + 3, "text": texts, "lat": lat,
                          "lon": lon, "ts": 1.6e9 + np.sort(rng.integers(0, 86400 * 3, n_posts)),
                          "author": rng.choice(["a", "b", "c", "d"], n_posts)})  # fmt: skip
    # each interest centred on a random post, with some of its words (so Fabret's region
    # and topic predicates hold for some posts)
    anchor = rng.choice(n_posts, n_int, replace=False)
    keywords = [" AND ".join(rng.permutation(sorted(set(texts[a].split())))[: rng.integers(1, 3)])
                for a in anchor]  # fmt: skip
    hour_lo = rng.integers(0, 12, n_int)
    ints = pd.DataFrame({"id": np.arange(n_int) + 100, "keywords": keywords,
                         "min_lat": lat[anchor] - 3, "min_lon": lon[anchor] - 6,
                         "max_lat": lat[anchor] + 3, "max_lon": lon[anchor] + 6,
                         "hour_lo": np.where(np.arange(n_int) % 2, 0, hour_lo),
                         "hour_hi": np.where(np.arange(n_int) % 2, 23, hour_lo + 11)})  # fmt: skip
    p_path, i_path = tmp_path / "p.parquet", tmp_path / "i.csv"
    posts.to_parquet(p_path)
    ints.to_csv(i_path, index=False)
    out = tmp_path / "out"
    algos = "hash,SALB,grid,hybrid,counting,static,pkg_global"
    assert _run(p_path, i_path, out, "--workers", "3", "--algorithm", algos,
                "--seed", str(seed)) == 0  # fmt: skip
    answers = _answers(out)
    words = {r.id: set(r.text.split()) for r in posts.itertuples()}
    s3tm = {(p, r.id) for r in ints.itertuples() for p in words
            if set(r.keywords.split(" AND ")) <= words[p]}  # fmt: skip
    where = {r.id: (r.lat, r.lon) for r in posts.itertuples()}
    spatial = {(p, i) for p, i in s3tm
               if (q := ints.set_index("id").loc[i]).min_lat <= where[p][0] <= q.max_lat
               and q.min_lon <= where[p][1] <= q.max_lon}  # fmt: skip
    data = read_user_compare(p_path, i_path, BadRecordReport(), windows=4)
    ptr, hit = oracle_match(predicate_subscriptions(data.interests),
                            post_events(data.stream, data.stream["topic"].to_numpy()))  # fmt: skip
    fabret = {(int(data.post_ids[e]), int(data.interest_ids[s]))
              for e in range(len(ptr) - 1) for s in hit[ptr[e]:ptr[e + 1]]}  # fmt: skip
    assert len(s3tm) > 20 and len(spatial) > 3 and len(fabret) > 0
    assert answers.get("S3-TM", set()) == s3tm
    assert answers.get("PS2Stream", set()) == spatial
    assert answers.get("Fabret", set()) == fabret


def test_json_results_give_counts_as_integers_or_null(files, tmp_path):
    out = tmp_path / "j"
    assert _run(*files, out, "--workers", "2", "--algorithm", "hash,kg", "--format", "json") == 0
    rows = {r["router"]: r for r in json.loads((out / "results.json").read_text())}
    assert rows["hash"]["matches"] == 11 and isinstance(rows["hash"]["matches"], int)
    assert rows["kg"]["matches"] is None and rows["kg"]["workers_per_key"] == 1
    assert rows["hash"]["workers_per_key"] is None
