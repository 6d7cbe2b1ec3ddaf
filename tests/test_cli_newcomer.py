"""A newcomer's third hour: the CLI on hand-made files with deliberate mistakes.

Each test's expected answer is computed by hand in its docstring or comments:

- item 2, ``s3tm match`` with the user's own subscriptions (CSV and Parquet of ``sub_id,
  words``): the words are normalised like the posts' (``vaccine`` -> ``vaccin``, ``Coffee``
  -> ``coffe``), a stop-word-only subscription is a bad record naming file:line;
- item 3, ``spatial match``: a query's delete/insert time typo (``2O``, ``abc``) and a
  rectangle at latitude -91..91 are bad records, not "never deleted" or accepted;
- item 4, ``filtering match``: a 23-digit id is a counted ``bad_id``, the majority rule
  says what it decided and why and offers ``--types``, ``--types price=number`` works;
- item 5, ``filtering match --routing access``: range-only subscriptions form one group on
  one partition (notebook 10), messages per event against broadcast in ``summary.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from command_runner import run_command

from routelab.cli import main

# ----------------------------------------------------------------------------- item 2
TWEETS = {
    1: "New vaccines arrive today",
    2: "Coffee prices are rising",
    3: "I love my morning coffee",
    4: "The vaccine works",
    5: "Rain again all week",
    6: "Vaccinated and drinking coffee",
}
OWN_SUBS = {1: "vaccine", 2: "Coffee", 3: "vaccine coffee", 4: "the"}
# by hand: vaccin is in posts 1, 4, 6; coffe in 2, 3, 6; both in 6; "the" never (a stop word)
EXPECTED_S3TM = {(1, 1), (4, 1), (6, 1), (2, 2), (3, 2), (6, 2), (6, 3)}


def _posts_folder(tmp_path: Path) -> Path:
    """The folder ``routelab s3tm preprocess`` writes, made without Spark: the word sets
    by the corpus cleaning, and the report's settings."""
    from routelab.corpus.text import clean_words

    posts = tmp_path / "posts"
    posts.mkdir()
    frame = pd.DataFrame(
        {"post_id": list(TWEETS), "words": [clean_words(t) for t in TWEETS.values()]}
    )
    assert frame.words.map(len).min() > 0
    frame.to_parquet(posts / "posts.parquet", index=False)
    settings = {"min_words": 1, "stem": True, "stem_mode": "original", "stopwords": "default"}
    (posts / "report.json").write_text(json.dumps({"settings": settings}))
    return posts


def _own_subscription_files(tmp_path: Path) -> dict[str, Path]:
    csv_path = tmp_path / "subs.csv"
    csv_path.write_text("sub_id,words\n" + "".join(f"{i},{w}\n" for i, w in OWN_SUBS.items()))
    pq_path = tmp_path / "subs.parquet"
    pd.DataFrame(
        {"sub_id": list(OWN_SUBS), "words": [w.split() for w in OWN_SUBS.values()]}
    ).to_parquet(pq_path, index=False)
    return {"csv": csv_path, "parquet": pq_path}


def test_own_subscription_words_are_normalised_like_the_posts(tmp_path):
    from routelab.s3tm.io import posts_normalisation, read_subscriptions_file

    posts = _posts_folder(tmp_path)
    vocab = sorted({w for t in TWEETS.values() for w in __import__("routelab.corpus.text",
                    fromlist=["clean_words"]).clean_words(t)})  # fmt: skip
    norm = posts_normalisation(posts)
    assert norm.stem and norm.stem_mode == "original" and "report.json" in norm.source
    for kind, path in _own_subscription_files(tmp_path).items():
        loaded = read_subscriptions_file(path, vocab, norm)
        c = loaded.corpus
        got = {
            int(sid): sorted(c.vocab[j] for j in c.indices[c.indptr[k] : c.indptr[k + 1]])
            for k, sid in enumerate(c.post_ids)
        }
        assert got == {1: ["vaccin"], 2: ["coffe"], 3: ["coffe", "vaccin"]}, kind
        assert dict(loaded.report.counts) == {"stop_word": 1}
        (example,) = loaded.report.examples["stop_word"]
        assert (
            example.line == (5 if kind == "csv" else 4) and "'the' is a stop word" in example.detail
        )
        assert "Coffee -> coffe" in loaded.words["changed_examples"]
        assert loaded.words["stop_words_refused"] == ["the"]


def test_subscription_ids_and_unusable_words_are_checked(tmp_path):
    """A stop word refuses its subscription instead of being dropped from it (``the flu``
    without ``the`` would match more than asked); so does a word of punctuation only."""
    from routelab.s3tm.io import read_subscriptions_file

    path = tmp_path / "subs.csv"
    rows = ["1,flu", "x,flu", "12345678901234567890123,flu", "1,cold", "2,ebola", "3,the flu",
            "4,flu !!!"]  # fmt: skip
    path.write_text("sub_id,words\n" + "\n".join(rows) + "\n")
    loaded = read_subscriptions_file(path, ["flu"])
    assert dict(loaded.report.counts) == {
        "bad_id": 2, "duplicate_id": 1, "stop_word": 1, "no_words": 1,
    }  # fmt: skip
    assert [e.line for e in loaded.report.examples["bad_id"]] == [3, 4]
    assert loaded.report.examples["duplicate_id"][0].line == 5
    assert loaded.report.examples["stop_word"][0].line == 7
    assert "'!!!' has no letter or digit" in loaded.report.examples["no_words"][0].detail
    # ebola is no post's word: kept (it just matches nothing here), and said
    assert loaded.corpus.post_ids.tolist() == [1, 2]
    assert loaded.words["subscriptions_with_a_word_no_post_has"] == 1


def test_help_says_what_subscriptions_it_reads(capsys):
    with pytest.raises(SystemExit):
        main(["s3tm", "match", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "sub_id,words" in text and "separated by spaces" in text
    assert "stemmed like the posts" in text


@pytest.mark.spark
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_s3tm_match_with_own_subscriptions_finds_the_hand_computed_matches(
    tmp_path, spark, capsys, kind
):
    posts = _posts_folder(tmp_path)
    subs = _own_subscription_files(tmp_path)[kind]
    out = tmp_path / "out"
    argv = ["s3tm", "match", "--posts", str(posts), "--subscriptions", str(subs)]
    assert run_command("s3tm", [*argv, "--workers", "2", "--out", str(out)]) == 0
    matches = pd.read_csv(out / "matches.csv")
    assert set(map(tuple, matches.to_numpy().tolist())) == EXPECTED_S3TM
    bad = json.loads((out / "bad_records.json").read_text())
    assert bad["counts"] == {"stop_word": 1}
    assert bad["examples"]["stop_word"][0]["file"] == str(subs)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["matches"] == 7 and summary["counts"]["subscriptions"] == 3
    assert summary["subscription_words"]["normalisation"]["stem_mode"] == "original"
    printed = capsys.readouterr().out
    assert "Coffee -> coffe" in printed and "7 matches" in printed


# ----------------------------------------------------------------------------- item 3
OBJECTS = """id,text,lat,lon,ts
o1,flu vaccine clinic,10.0,20.0,1
o2,flu shot,10.1,20.1,5
o3,flu season,10.2,20.2,30
"""
QUERIES = """id,keywords,min_lat,min_lon,max_lat,max_lon,insert,delete
q1,flu,9,19,11,21,0,2O
q2,flu,9,19,11,21,abc,
q3,flu,-91,19,91,21,0,
q4,flu,9,19,11,21,0,20
q5,flu,9,19,11,200,0,
q6,flu,9,19,11,21,,
"""


def _spatial_files(tmp_path: Path, objects: str = OBJECTS, queries: str = QUERIES):
    o, q = tmp_path / "objects.csv", tmp_path / "queries.csv"
    o.write_text(objects)
    q.write_text(queries)
    return o, q


def test_query_time_typos_and_out_of_range_rectangles_are_bad_records(tmp_path):
    """q1 (delete ``2O``) and q2 (insert ``abc``): bad_time; q3 (lat -91..91) and q5 (lon
    200): coordinates_out_of_range; q4 and q6 (empty times: from the start, never deleted)
    are used. By hand: q4 gets o1, o2 (deleted at 20, before o3 at 30), q6 all three."""
    from routelab.badrecords import BadRecordReport
    from routelab.spatial.io import read_user_stream
    from routelab.spatial.oracle import oracle_pairs

    o, q = _spatial_files(tmp_path)
    bad = BadRecordReport()
    stream = read_user_stream(o, q, bad)
    assert dict(bad.counts) == {"bad_time": 2, "coordinates_out_of_range": 2}
    lines = {r: sorted(e.line for e in ex) for r, ex in bad.examples.items()}
    assert lines == {"bad_time": [2, 3], "coordinates_out_of_range": [4, 6]}
    details = {e.detail for e in bad.examples["bad_time"]}
    assert details == {"delete is not a number", "insert is not a number"}
    qids, oids = stream.info["query_ids"], stream.info["object_ids"]
    pairs = {(qids[qq], oids[oo]) for qq, oo in oracle_pairs(stream)}
    assert pairs == {("q4", "o1"), ("q4", "o2"), ("q6", "o1"), ("q6", "o2"), ("q6", "o3")}


def test_a_delete_column_alone_deletes_and_times_need_the_objects_ts(tmp_path):
    from routelab.badrecords import BadRecordReport
    from routelab.errors import BadInputError
    from routelab.spatial.io import read_user_stream
    from routelab.spatial.oracle import oracle_pairs

    queries = "id,keywords,min_lat,min_lon,max_lat,max_lon,delete\nq1,flu,9,19,11,21,3\n"
    o, q = _spatial_files(tmp_path, OBJECTS, queries)
    stream = read_user_stream(o, q, BadRecordReport())
    assert oracle_pairs(stream) == {(0, 0)}  # o1 (ts 1) only: q1 is deleted at 3
    untimed = OBJECTS.replace(",ts\n", "\n").replace(",1\n", "\n").replace(",5\n", "\n")
    o, q = _spatial_files(tmp_path, untimed.replace(",30\n", "\n"), queries)
    with pytest.raises(BadInputError, match="has delete times but objects.csv has no ts"):
        read_user_stream(o, q, BadRecordReport())


@pytest.mark.spark
def test_spatial_match_reports_the_query_typos(tmp_path, spark):
    o, q = _spatial_files(tmp_path)
    out = tmp_path / "out"
    argv = ["spatial", "match", "--objects", str(o), "--queries", str(q), "--grid", "8"]
    assert main([*argv, "--workers", "2", "--out", str(out)]) == 0
    pairs = pd.read_csv(out / "matches.csv")
    assert sorted(map(tuple, pairs.to_numpy().tolist())) == [
        ("o1", "q4"), ("o1", "q6"), ("o2", "q4"), ("o2", "q6"), ("o3", "q6"),
    ]  # fmt: skip
    bad = json.loads((out / "bad_records.json").read_text())
    assert bad["counts"] == {"bad_time": 2, "coordinates_out_of_range": 2}
    assert {e["line"] for e in bad["examples"]["bad_time"]} == {2, 3}


# ----------------------------------------------------------------------------- item 4
FILTER_SUBS = """sub_id,attr,op,value
1,price,>,100
2,price,=,cheap
3,carrier,=,UA
12345678901234567890123,carrier,=,AA
"""
FILTER_EVENTS = """event_id,attr,value
1,price,cheap
1,carrier,UA
2,price,free
3,price,150
3,carrier,AA
4,price,expensive
5,price,cheap
6,price,unknown
7,price,cheap
99999999999999999999,price,cheap
"""


def _filter_files(tmp_path: Path, subs: str = FILTER_SUBS, events: str = FILTER_EVENTS):
    s, e = tmp_path / "subs.csv", tmp_path / "events.csv"
    s.write_text(subs)
    e.write_text(events)
    return s, e


def test_a_huge_id_is_a_counted_bad_record(tmp_path):
    from routelab.filtering.io import read_workload

    s, e = _filter_files(tmp_path)
    w = read_workload(s, e)  # no OverflowError
    assert w.report.counts["bad_id"] == 2
    where = sorted((x.file.rsplit("/", 1)[-1], x.line) for x in w.report.examples["bad_id"])
    assert where == [("events.csv", 11), ("subs.csv", 5)]
    assert all("64-bit integer" in x.detail for x in w.report.examples["bad_id"])


def test_the_majority_rule_says_what_it_decided_and_offers_types(tmp_path):
    """price: cheap, free, 150, expensive, cheap, unknown, cheap (events, the 20-digit
    event is a bad id) and 100, cheap (subs) = 7 text of 9: text; ``price > 100`` is refused
    saying so, and ``--types price=number`` reads it as numbers instead."""
    from routelab.filtering.io import read_workload

    s, e = _filter_files(tmp_path)
    w = read_workload(s, e)
    reason = "attribute price: 7 of 9 values are text, so it is read as text"
    assert w.kind_reasons["price"].startswith(reason)
    assert w.kinds == {"price": "str", "carrier": "str"}
    (refused,) = w.report.examples["non_numeric_value"]
    assert refused.line == 2 and reason in refused.detail
    assert "--types price=number" in refused.detail
    as_number = read_workload(s, e, {"price": "number"})
    assert as_number.kinds["price"] == "int" and 1 in as_number.subs.ids.tolist()
    # the six text prices of events.csv and subscription 2's ``price = cheap``
    assert as_number.report.counts["non_numeric_value"] == 7
    assert 2 not in as_number.subs.ids.tolist()
    assert "carrier" not in w.kind_reasons  # no mixed values, nothing to explain


def test_filtering_help_says_ids_are_integers_and_the_cost_of_a_bad_value(capsys):
    with pytest.raises(SystemExit):
        main(["filtering", "match", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Ids are integers" in text
    assert "the event loses that attribute only" in text
    assert "the whole subscription is dropped" in text
    assert "number or text" in text


@pytest.mark.spark
def test_filtering_match_on_the_newcomers_files(tmp_path, spark, capsys):
    s, e = _filter_files(tmp_path)
    out = tmp_path / "out"
    argv = ["filtering", "match", "--subs", str(s), "--events", str(e), "--out", str(out)]
    assert run_command("filtering", argv) == 0
    printed = capsys.readouterr().out
    assert "attribute price: 7 of 9 values are text" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["attribute_kinds"] == {"carrier": "str", "price": "str"}
    bad = json.loads((out / "bad_records.json").read_text())
    assert bad["counts"] == {"bad_id": 2, "non_numeric_value": 1}
    # by hand: sub 2 (price = cheap) matches events 1, 5, 7; sub 3 (carrier = UA) event 1
    pairs = set(map(tuple, pd.read_csv(out / "matches.csv").to_numpy().tolist()))
    assert pairs == {(1, 2), (5, 2), (7, 2), (1, 3)}


# ----------------------------------------------------------------------------- item 5
ROUTING_SUBS = """sub_id,attr,op,value
1,price,>,100
2,price,<,20
3,qty,>=,5
4,carrier,=,UA
5,carrier,=,AA
5,price,<,300
"""
ROUTING_EVENTS = """event_id,attr,value
1,carrier,UA
1,price,150
2,carrier,AA
2,price,10
3,carrier,DL
3,price,50
4,qty,7
4,price,500
"""


def _access_run(tmp_path: Path, subs: str, events: str, *extra: str) -> dict:
    s, e = _filter_files(tmp_path, subs, events)
    out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
    argv = ["filtering", "match", "--subs", str(s), "--events", str(e), "--workers", "3"]
    assert run_command("filtering", [*argv, "--routing", "access", *extra, "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    summary["pairs"] = set(map(tuple, pd.read_csv(out / "matches.csv").to_numpy().tolist()))
    summary["workers_table"] = pd.read_csv(out / "workers.csv")
    return summary


@pytest.mark.spark
def test_access_routing_keeps_range_only_subscriptions_in_one_group(tmp_path, spark):
    """Subscriptions 1-3 have no equality: one group, on one partition, which receives
    all 4 events; carrier = UA and carrier = AA (nu 1/4 each) each go to one of the two
    other partitions. Events 1 (UA) and 2 (AA) go to 2 partitions, events 3 (DL) and 4 (no
    carrier) to 1: (2 + 2 + 1 + 1) / 4 = 1.5 messages per event; broadcast sends 3."""
    run = _access_run(tmp_path, ROUTING_SUBS, ROUTING_EVENTS)
    assert run["messages_per_event"] == pytest.approx(1.5)
    assert run["broadcast_messages_per_event"] == 3
    assert run["messages_vs_broadcast"] == pytest.approx(0.5)
    assert run["catch_all"] == "group"
    table = run["workers_table"].sort_values("subscriptions", ignore_index=True)
    assert table.subscriptions.tolist() == [1, 1, 3] and table.events.tolist() == [1, 1, 4]
    # by hand: e1 (UA, 150): 1, 4; e2 (AA, 10): 2, 5; e3: none; e4 (qty 7, 500): 1, 3
    assert run["pairs"] == {(1, 1), (1, 4), (2, 2), (2, 5), (4, 1), (4, 3)}
    only_ranges = "\n".join(ROUTING_SUBS.splitlines()[:4]) + "\n"
    assert _access_run(tmp_path, only_ranges, ROUTING_EVENTS)["messages_per_event"] == 1.0
    spread = _access_run(tmp_path, ROUTING_SUBS, ROUTING_EVENTS, "--catch-all", "spread")
    assert spread["messages_per_event"] == 3.0 and spread["pairs"] == run["pairs"]


# ----------------------------------------------------------------------------- item 6
def _drifting_stream(tmp_path: Path, seed: int = 7) -> tuple[Path, Path]:
    """240 objects (the first 80 spread over a 10 x 10 degree box, the rest in its
    north-east corner: the load drifts) and 30 queries, a sixth of them deleted at 200."""
    import numpy as np

    rng = np.random.default_rng(seed)
    words = ["flu", "vaccine", "cough", "fever", "clinic", "nurse"]
    objects = []
    for i in range(240):
        lo, hi = (0, 10) if i < 80 else (8, 10)
        objects.append({"id": f"o{i}", "text": " ".join(rng.choice(words, 2, replace=False)),
                        "lat": round(rng.uniform(lo, hi), 4), "lon": round(rng.uniform(lo, hi), 4),
                        "ts": i + 1})  # fmt: skip
    queries = []
    for j in range(30):
        lat, lon = rng.uniform(0, 9, size=2)
        keywords = " OR ".join(rng.choice(words, 2, replace=False)) if j % 2 else words[j % 6]
        queries.append({"id": f"q{j}", "keywords": keywords, "min_lat": round(lat, 3),
                        "min_lon": round(lon, 3), "max_lat": round(lat + 1.5, 3),
                        "max_lon": round(lon + 1.5, 3), "insert": 0,
                        "delete": 200 if j % 5 == 0 else ""})  # fmt: skip
    o, q = tmp_path / "objects.csv", tmp_path / "queries.csv"
    pd.DataFrame(objects).to_csv(o, index=False)
    pd.DataFrame(queries).to_csv(q, index=False)
    return o, q


def test_spatial_adjust_migrates_and_delivers_the_oracles_pairs(tmp_path, capsys):
    """``routelab spatial adjust`` on a drifting stream: the load trigger fires, cells
    migrate (Phase II by each selector), and the delivered pairs are the brute force's."""
    from routelab.badrecords import BadRecordReport
    from routelab.spatial.io import read_user_stream
    from routelab.spatial.oracle import oracle_pairs

    o, q = _drifting_stream(tmp_path)
    stream = read_user_stream(o, q, BadRecordReport())
    qids, oids = stream.info["query_ids"], stream.info["object_ids"]
    truth = {(oids[oo], qids[qq]) for qq, oo in oracle_pairs(stream)}
    assert len(truth) > 20
    tuples = 240 + 30 + 6  # objects, insertions, deletions
    for selector in ("GR", "DP", "SI", "RA"):
        out = tmp_path / selector
        argv = ["spatial", "adjust", "--objects", str(o), "--queries", str(q), "--workers", "3",
                "--grid", "16", "--period", "40", "--sigma", "1.2", "--selector", selector,
                "--out", str(out)]  # fmt: skip
        assert main(argv) == 0
        got = set(map(tuple, pd.read_csv(out / "matches.csv").to_numpy().tolist()))
        assert got == truth, selector
        periods = pd.read_csv(out / "periods.csv")
        assert len(periods) == -(-tuples // 40) and periods.tuples.sum() == tuples
        assert {"sigma_obs", "load_0", "load_2", "msgs_1", "migrated_cells"} <= set(periods)
        migrations = pd.read_csv(out / "migrations.csv")
        assert len(migrations) > 0 and set(migrations.phase) <= {"I-split", "I-merge", "II"}
        summary = json.loads((out / "summary.json").read_text())
        assert summary["counts"]["matches"] == len(truth)
        assert summary["counts"]["migrations"] == len(migrations)
        assert summary["counts"]["migrated_cells"] == periods.migrated_cells.sum()
        assert summary["selector"] == selector
        assert sorted(summary["files"]) == [
            "bad_records.json", "matches.csv", "migrations.csv", "periods.csv", "summary.json",
        ]  # fmt: skip
    assert "migration(s) moving" in capsys.readouterr().out
    argv[argv.index("--selector") + 1] = "XX"
    assert main([*argv, "--overwrite"]) != 0
    assert "--selector" in capsys.readouterr().err


CHURN_SUBS = """sub_id,attr,op,value,insert,delete
1,carrier,=,UA,,
2,carrier,=,AA,0,5
3,price,<,100,3,
3,carrier,=,AA,3,
4,price,>,200,,4
5,carrier,=,DL,2O,
"""
CHURN_EVENTS = """event_id,attr,value,time
1,carrier,AA,1
1,price,50,1
2,carrier,UA,3
2,price,300,3
3,carrier,AA,5
3,price,80,5
4,carrier,AA,6
4,price,90,6
5,price,250,4
"""


@pytest.mark.parametrize("algorithm", ["dynamic", "counting", "static"])
def test_filtering_churn_matches_the_live_set_by_hand(tmp_path, capsys, algorithm):
    """Alive: 1 always, 2 over [0, 5], 3 from 3, 4 until 4; 5's insert ``2O`` is a bad time.
    In time order: e1 (t 1: AA, 50) -> 2; e2 (t 3: UA, 300) -> 1, 4; e5 (t 4: 250) -> 4 (a
    deletion at 4 comes after the events at 4); e3 (t 5: AA, 80) -> 2, 3; e4 (t 6: AA, 90)
    -> 3 (2 was deleted at 5)."""
    s, e = _filter_files(tmp_path, CHURN_SUBS, CHURN_EVENTS)
    out = tmp_path / "out"
    argv = ["filtering", "churn", "--subs", str(s), "--events", str(e), "--out", str(out)]
    assert run_command("filtering", [*argv, "--algorithm", algorithm]) == 0
    pairs = set(map(tuple, pd.read_csv(out / "matches.csv").to_numpy().tolist()))
    assert pairs == {(1, 2), (2, 1), (2, 4), (5, 4), (3, 2), (3, 3), (4, 3)}
    bad = json.loads((out / "bad_records.json").read_text())
    assert bad["counts"] == {"bad_time": 1} and bad["examples"]["bad_time"][0]["line"] == 7
    steps = pd.read_csv(out / "steps.csv")
    # batches: t 1 (1, 2, 4 alive), t 3-4 (3 inserted), t 5 (4 deleted), t 6 (2 deleted)
    assert steps.live.tolist() == [3, 4, 3, 2] and steps.events.tolist() == [1, 2, 1, 1]
    assert steps.deleted.tolist() == [0, 0, 1, 1]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["matches"] == 7 and summary["counts"]["max_live"] == 4
    assert "7 matches" in capsys.readouterr().out


def test_filtering_match_refuses_timed_files(tmp_path, capsys):
    s, e = _filter_files(tmp_path, CHURN_SUBS, CHURN_EVENTS)
    argv = ["filtering", "match", "--subs", str(s), "--events", str(e)]
    assert run_command("filtering", [*argv, "--out", str(tmp_path / "out")]) == 2
    assert "routelab filtering churn" in capsys.readouterr().out


def test_churn_equals_the_oracle_over_the_live_set_for_every_algorithm():
    """A seeded random workload with small domains (many matches) and random lifetimes:
    every algorithm's replay equals the brute force over each event's live set."""
    import numpy as np

    from routelab.filtering.churn import alive, replay_churn
    from routelab.filtering.matchers import ALGORITHMS
    from routelab.filtering.model import Events, Subscriptions
    from routelab.filtering.oracle import oracle_match

    rng = np.random.default_rng(35)
    ops = ["=", "=", "<=", ">=", "!="]
    lists = [
        [(int(a), str(rng.choice(ops)), int(rng.integers(0, 5)))
         for a in rng.choice(4, size=int(rng.integers(1, 3)), replace=False)]
        for _ in range(300)
    ]  # fmt: skip
    subs = Subscriptions.from_lists(lists, ids=(np.arange(300) * 3 + 1).tolist(), n_attrs=4)
    events = Events(rng.integers(0, 5, size=(200, 4)).astype(np.int64), np.arange(200) + 1000)
    insert = np.where(rng.random(300) < 0.3, np.nan, rng.integers(0, 100, 300).astype(float))
    delete = np.where(rng.random(300) < 0.4, np.nan, rng.integers(0, 100, 300).astype(float))
    delete = np.where(delete < np.nan_to_num(insert, nan=-1), np.nan, delete)
    times = rng.integers(0, 100, 200).astype(float)
    truth = set()
    for k in range(len(events)):
        live = subs.take(np.flatnonzero(alive(insert, delete, times[k])))
        ptr, idx = oracle_match(live, Events(events.values[k : k + 1], events.ids[k : k + 1]))
        truth |= {(int(events.ids[k]), int(i)) for i in live.ids[idx]}
    assert len(truth) > 500
    for algorithm in ALGORITHMS:
        run = replay_churn(subs, events, insert, delete, times, algorithm, seed=0)
        assert set(map(tuple, run.pairs.to_numpy().tolist())) == truth, algorithm
        assert run.steps.inserted.sum() >= run.steps.deleted.sum() > 0


def test_workers_are_numbers_in_summary_and_errors() -> None:
    """``summary.json`` records --workers as numbers; an error names the count, not a list."""
    import argparse

    from routelab.commands import _typed, workers
    from routelab.errors import BadInputError

    assert _typed("workers", "2") == 2 and _typed("workers", "2,4") == [2, 4]
    assert _typed("workers", "x") == "x" and _typed("out", "2") == "2"
    with pytest.raises(BadInputError, match=r"--workers 100: each count must be 1\.\.64"):
        workers(argparse.Namespace(workers="100"), high=64)
