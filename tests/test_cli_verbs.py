"""Every system verb of ``routelab <system> <verb>`` has the shared options and writes the
shared files, so a new verb cannot drift: the walk below enumerates the verbs from the
parser itself and fails on a verb it has no tiny run for."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
import pytest

from routelab.cli import build_parser, main
from routelab.commands import BAD_RECORDS_FILE, SUMMARY_FILE

SYSTEMS = ("s3tm", "grouping", "filtering", "spatial")
#: verbs that run the system's methods: they choose them with --algorithm and --workers and
#: write result tables in --format
METHOD_VERBS = {"s3tm route", "s3tm match", "grouping run", "filtering match", "spatial match"}


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def _verbs() -> dict[str, argparse.ArgumentParser]:
    top = _subparsers(build_parser())
    assert set(SYSTEMS) <= set(top), "every system is a top-level command"
    return {f"{s} {v}": p for s in SYSTEMS for v, p in _subparsers(top[s]).items()}


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings}


VERBS = _verbs()


def test_the_old_flat_verbs_are_gone():
    top = _subparsers(build_parser())
    assert not {"group", "preprocess", "stats", "subscriptions"} & set(top)


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_every_verb_has_the_shared_options(verb):
    options = _options(VERBS[verb])
    assert {"--out", "--overwrite"} <= options, verb
    if verb in METHOD_VERBS:
        assert {"--algorithm", "--workers", "--format", "--master"} <= options, verb
        # a matcher runs one method on one worker count, and its help says so
        (algo,) = [a for a in VERBS[verb]._actions if "--algorithm" in a.option_strings]
        (work,) = [a for a in VERBS[verb]._actions if "--workers" in a.option_strings]
        single = verb.endswith("match")
        assert (algo.metavar == "NAME") == single and (work.metavar == "N") == single, verb
        registry = VERBS[verb].get_default("_registry")
        help_text = VERBS[verb].format_help()
        assert registry is not None and all(name in help_text for name in registry), verb
    assert "--partitions" not in options and "--schemes" not in options and "--json" not in options


OBJECTS = "id,text,lat,lon,ts\no1,flu vaccine,60.17,24.94,1\no2,cold,60.171,24.941,2\n"
QUERIES = "id,keywords,min_lat,min_lon,max_lat,max_lon\nq1,flu,60.16,24.93,60.18,24.96\n"
TWEETS = "id,text\n1,flu vaccine today\n2,ebola outbreak news\n3,flu shots clinic\n4,flu news\n"
TIMED_SUBS = "sub_id,attr,op,value,insert,delete\n1,a,=,1,,2\n2,a,>,0,1,\n"
TIMED_EVENTS = "event_id,attr,value,time\n1,a,1,0\n2,a,1,3\n"


def _runs(tmp: Path) -> dict[str, list[str]]:
    """A tiny run of every verb; each reads only files made here or by an earlier verb."""
    (tmp / "tweets.csv").write_text(TWEETS)
    (tmp / "keys.txt").write_text("1\n2\n1\n3\n1\n")
    (tmp / "objects.csv").write_text(OBJECTS)
    (tmp / "queries.csv").write_text(QUERIES)
    (tmp / "timed_subs.csv").write_text(TIMED_SUBS)
    (tmp / "timed_events.csv").write_text(TIMED_EVENTS)
    return {
        "s3tm preprocess": ["--input", str(tmp / "tweets.csv"), "--input-format", "csv",
                            "--no-progress"],
        "s3tm stats": ["--posts", str(tmp / "out-s3tm-preprocess")],
        "s3tm subscriptions": ["--posts", str(tmp / "out-s3tm-preprocess"), "--kind", "tweet",
                               "--n", "2", "--no-progress"],
        "s3tm route": ["--posts", str(tmp / "out-s3tm-preprocess"), "--workers", "2"],
        "s3tm match": ["--posts", str(tmp / "out-s3tm-preprocess"), "--subscriptions",
                       str(tmp / "out-s3tm-subscriptions"), "--workers", "2"],
        "grouping run": ["--keys", str(tmp / "keys.txt"), "--algorithm", "kg", "--workers", "2"],
        "filtering export": ["--n", "20", "--events", "5"],
        "filtering match": ["--subs", str(tmp / "out-filtering-export" / "subs.csv"),
                            "--events", str(tmp / "out-filtering-export" / "events.csv")],
        "filtering churn": ["--subs", str(tmp / "timed_subs.csv"), "--events",
                            str(tmp / "timed_events.csv")],
        "spatial match": ["--objects", str(tmp / "objects.csv"), "--queries",
                          str(tmp / "queries.csv"), "--workers", "2", "--grid", "8"],
        "spatial adjust": ["--objects", str(tmp / "objects.csv"), "--queries",
                           str(tmp / "queries.csv"), "--workers", "2", "--grid", "8",
                           "--period", "2"],
    }  # fmt: skip


@pytest.mark.spark
def test_every_verb_writes_summary_and_bad_records(spark, tmp_path):
    runs = _runs(tmp_path)
    assert set(runs) == set(VERBS), "a verb without a tiny run here: add one"
    for verb, argv in runs.items():  # in order: later verbs read earlier verbs' outputs
        out = tmp_path / f"out-{verb.replace(' ', '-')}"
        assert main([*verb.split(), *argv, "--out", str(out)]) == 0, verb
        summary = json.loads((out / SUMMARY_FILE).read_text())
        assert summary["command"] == f"routelab {verb}"
        assert {"parameters", "counts", "timings", "routelab_version", "routelab_commit"} <= set(
            summary
        ), verb
        bad = json.loads((out / BAD_RECORDS_FILE).read_text())
        assert {"records", "bad", "counts", "examples"} <= set(bad), verb
        assert all((out / f).exists() for f in summary["files"]), verb
        if verb.endswith("match"):
            matches = pd.read_csv(out / "matches.csv")
            assert len(matches.columns) == 2 and all(c.endswith("_id") for c in matches.columns)
            assert (out / "workers.csv").exists(), verb
        # the same verb again refuses to overwrite, and --overwrite replaces the results:
        # a table in another --format leaves no stale copy beside it
        assert main([*verb.split(), *argv, "--out", str(out)]) == 2, verb
        fmt = ["--format", "json"] if "--format" in _options(VERBS[verb]) else []
        assert main([*verb.split(), *argv, "--out", str(out), "--overwrite", *fmt]) == 0, verb
        if fmt:
            assert not list(out.glob("*.csv")), f"{verb}: stale tables after --overwrite"
