"""``routelab filtering export|match``: Fabret et al.'s matchers on a generated workload or
on your files."""

from __future__ import annotations

import argparse

from routelab.commands import (
    Outputs,
    add_algorithm_option,
    add_master_option,
    add_output_options,
    add_system,
    add_workers_option,
    algorithms,
    workers,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    from routelab.filtering.dataflow import CATCH_ALL, ROUTINGS
    from routelab.filtering.matchers import MATCHERS

    verbs = add_system(
        subparsers,
        "filtering",
        help="Fabret et al.'s event matching: export a workload, match your own files",
        description="Export a workload of the paper's generator as neutral CSV files "
        "(subs.csv, events.csv, matches.csv) so another engine can run on exactly the same "
        "input, or match your own subs.csv/events.csv through the Spark dataflow.",
    )
    exp = verbs.add_parser(
        "export",
        help="write a generated workload as CSV files",
        description="Write N subscriptions and the events of a workload of Sect. 6.1 "
        "(Table 1) as OUT/subs.csv, OUT/events.csv and their matches OUT/matches.csv "
        "(computed by the counting matcher, equal to a brute force), with "
        "OUT/summary.json and OUT/bad_records.json.",
    )
    exp.add_argument(
        "--workload", default="W0", help="W0, W1op, W2op or ranges (default: %(default)s)"
    )
    exp.add_argument("--n", type=int, required=True, help="number of subscriptions")
    exp.add_argument("--events", type=int, default=100, help="number of events (default: 100)")
    exp.add_argument(
        "--seed", type=int, default=0, help="seed of the generator (default: %(default)s)"
    )
    add_output_options(exp, tables=False)
    exp.set_defaults(func=_export)
    mat = verbs.add_parser(
        "match",
        help="match events.csv against subs.csv on Spark",
        description=MATCH_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_workload_files(mat)
    add_algorithm_option(mat, MATCHERS, "propagation", many=False)
    add_workers_option(mat, 2, many=False)
    mat.add_argument(
        "--routing",
        choices=ROUTINGS,
        default="broadcast",
        help="broadcast: subscriptions hashed by id, every event to every instance; access "
        "(beyond the paper): whole access-predicate groups (the equality of least nu of each "
        "subscription) per instance, balanced on expected checks, each event only to the "
        "instances owning an equality it satisfies and to the one(s) holding the "
        "subscriptions without an equality (range-only ones; see --catch-all) "
        "(default: %(default)s)",
    )
    mat.add_argument(
        "--catch-all",
        choices=CATCH_ALL,
        default="group",
        help="with --routing access, where subscriptions without an equality go: group (one "
        "group on one instance, which receives every event, as notebook 10 runs it) or "
        "spread (dealt over every instance, so every instance receives every event) "
        "(default: %(default)s)",
    )
    mat.add_argument(
        "--seed", type=int, default=0, help="seed of the subscription split (broadcast routing)"
    )
    add_output_options(mat)
    add_master_option(mat)
    mat.set_defaults(func=_match)
    churn = verbs.add_parser(
        "churn",
        help="replay timed events against subscriptions that come and go (Sect. 4)",
        description=CHURN_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_workload_files(churn, timed=True)
    add_algorithm_option(churn, MATCHERS, "dynamic", many=False)
    churn.add_argument(
        "--seed", type=int, default=0, help="seed of static's greedy sample (default: 0)"
    )
    add_output_options(churn)
    churn.set_defaults(func=_churn)


MATCH_DESCRIPTION = """\
Partition the subscriptions over --workers matcher instances (Spark partitions, each
running --algorithm) and send every event to each of them, or (--routing access) only to
the instances whose access predicates it satisfies. Writes to --out:

  matches.<format>    event_id, subscription_id: every match
  workers.<format>    per instance: subscriptions, events received, build and match
                      seconds, matches, checks
  summary.json        messages per event and broadcast's (= --workers), load imbalance,
                      throughput, each attribute's kind and why
  bad_records.json    every unusable row by reason, with file:line and an excerpt

Input (CSV with a header):
  subs.csv    sub_id,attr,op,value: one row per predicate; a subscription is the
              conjunction of the rows sharing its sub_id; op one of < <= = != >= >
  events.csv  event_id,attr,value: one row per attribute of an event
Ids are integers (64-bit: at most 19 digits); any other id is a bad record (bad_id).

Attribute kinds: --types declares them (number or text); otherwise an attribute is
numeric when more than half of its values (both files) are numbers, else text. When an
attribute's values are mixed, the decision is printed ("attribute price: 7 of 9 values
are text, so it is read as text") and kept in summary.json. < <= >= > need numbers.

A bad value costs differently on the two sides:
  events.csv  the event loses that attribute only (its other attributes are kept;
              a subscription on that attribute does not match the event)
  subs.csv    the whole subscription is dropped (bad row non_numeric_value, its other
              rows subscription_dropped): a conjunction without one of its predicates
              would match more than was asked
"""


CHURN_DESCRIPTION = """\
Replay your events in time order against subscriptions that are inserted and deleted as
time goes by, through one matcher (--algorithm; dynamic is Fabret et al.'s dynamic
clustering, Sect. 4, which maintains its hash tables as subscriptions come and go). Runs in
this process. Input: the files of `routelab filtering match` with time columns:

  subs.csv    sub_id,attr,op,value[,insert][,delete]: a subscription is alive for an
              event at time t when insert <= t <= delete (empty insert: from the start,
              empty delete: never deleted; at equal times inserts, then events, then
              deletes); the rows of one subscription must agree on its times
  events.csv  event_id,attr,value,time: every event needs a time (numbers on one scale
              with insert and delete)

A time that is not a number, rows that disagree on a time or a delete before the insert
drop the whole subscription or event (bad_time, delete_before_insert). Writes to --out:

  matches.<format>    event_id, subscription_id: every match with a live subscription
  steps.<format>      per batch of events with no change between them: first_time,
                      events, inserted, deleted, live, matches, update_s, match_s, tables
                      (the multi-attribute hash tables in use)
  summary.json        counts (subscriptions, events, inserts, deletes, batches, the most
                      live at once, matches), timings, attribute kinds
  bad_records.json    every unusable row by reason, with file:line and an excerpt
"""


def add_workload_files(parser: argparse.ArgumentParser, *, timed: bool = False) -> None:
    """``--subs``, ``--events`` and ``--types``: the neutral CSV files (``match``; ``churn``,
    ``timed``, reads their time columns too)."""
    parser.add_argument(
        "--subs",
        required=True,
        metavar="CSV",
        help=(
            "sub_id,attr,op,value[,insert][,delete] rows" if timed else "sub_id,attr,op,value rows"
        )
        + " (sub_id an integer); op one of < <= = != >= > (a subscription is the conjunction "
        "of its rows; one bad row drops it)"
        + (
            "; insert/delete: when it lives (empty: from the start / never deleted)"
            if timed
            else ""
        ),
    )
    parser.add_argument(
        "--events",
        required=True,
        metavar="CSV",
        help=("event_id,attr,value,time rows" if timed else "event_id,attr,value rows")
        + " (event_id an integer; a bad value drops that attribute of the event only)",
    )
    parser.add_argument(
        "--types",
        metavar="ATTR=KIND[,...]",
        help="force attribute kinds: number or text (or int, float, str), e.g. "
        "price=number,carrier=text; an undeclared attribute is numeric when more than half "
        "of its values are numbers, else text (the decision is printed when values are mixed)",
    )


def read_files(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The workload of ``--subs``/``--events``/``--types`` (:func:`routelab.filtering.io.
    read_workload`), with its bad-record report and the kind decisions printed."""
    from pathlib import Path

    from routelab.filtering.io import parse_types, read_workload

    workload = read_workload(Path(args.subs), Path(args.events), parse_types(args.types))
    if workload.report.bad:
        print(workload.report)
    for reason in workload.kind_reasons.values():
        print(reason)
    return workload


def _export(args: argparse.Namespace) -> int:
    import numpy as np

    from routelab.errors import BadInputError
    from routelab.filtering.io import write_matches, write_workload
    from routelab.filtering.matchers import build_matcher
    from routelab.filtering.workload import WORKLOAD_NAMES, make_workload

    if args.workload not in WORKLOAD_NAMES:
        raise BadInputError(f"unknown workload {args.workload!r}; use {', '.join(WORKLOAD_NAMES)}")
    if args.n < 1 or args.events < 1:
        raise BadInputError("--n and --events must be >= 1")
    out = Outputs(args, "filtering export")
    subs, events = make_workload(args.workload, args.n, args.events, seed=args.seed)
    for name in ("subs.csv", "events.csv"):
        out.path(name)
    write_workload(out.dir, subs, events)
    ptr, ids = build_matcher("counting", subs).match(events)
    write_matches(out.path("matches.csv"), np.repeat(events.ids, np.diff(ptr)), ids)
    out.bad_records(None)
    out.summary(
        {"subscriptions": args.n, "events": args.events, "matches": len(ids)},
        workload=args.workload,
    )
    print(
        f"{args.workload}: {args.n:,} subscriptions, {args.events:,} events, {len(ids):,} "
        f"matches (by the counting matcher, equal to a brute force) -> {out.dir}"
    )
    if len(ids) == 0:
        print(
            f"warning: matches.csv is empty: {args.workload}'s subscriptions are so selective "
            f"that {args.events:,} events match none of {args.n:,}, so the export cannot check "
            f"another engine's answers. {_workload_with_matches(args)}"
        )
    return 0


def _workload_with_matches(args: argparse.Namespace) -> str:
    """Advice naming the first workload of Sect. 6.1 whose export at this size has
    matches, or more subscriptions and events."""
    from routelab.filtering.matchers import build_matcher
    from routelab.filtering.workload import WORKLOADS, generate_events, generate_subscriptions

    for name, w in WORKLOADS.items():
        subs = generate_subscriptions(w, args.n, seed=args.seed)
        ptr, _ = build_matcher("counting", subs).match(
            generate_events(w, args.events, seed=args.seed)
        )
        if ptr[-1] > 0:
            return f"Try --workload {name}: it has {int(ptr[-1]):,} matches at this size."
    return "Try more subscriptions (--n) or events (--events)."


def _match(args: argparse.Namespace) -> int:
    import math
    import time

    import pandas as pd

    from routelab.errors import BadInputError
    from routelab.filtering.dataflow import match_on_spark
    from routelab.filtering.io import MATCHES_HEADER

    (algorithm,) = algorithms(args)
    (n,) = workers(args)
    out = Outputs(args, "filtering match")
    t0 = time.perf_counter()
    workload = read_files(args)
    read_s = time.perf_counter() - t0
    report = workload.report
    if workload.time_columns:
        raise BadInputError(
            f"the files have time columns ({', '.join(workload.time_columns)}): `routelab "
            "filtering match` matches every event against every subscription; replay them in "
            "time with `routelab filtering churn`"
        )
    if len(workload.subs) == 0 or len(workload.events) == 0:
        raise BadInputError(
            f"nothing to match: {len(workload.subs)} usable subscriptions, "
            f"{len(workload.events)} usable events (see the bad-record report above)"
        )
    from routelab.spark import get_spark

    spark = get_spark(args.master, app_name="routelab-filtering", quiet=True)
    t0 = time.perf_counter()
    result = match_on_spark(
        workload.subs,
        workload.events,
        algorithm=algorithm,
        partitions=n,
        seed=args.seed,
        spark=spark,
        routing=args.routing,
        catch_all=args.catch_all,
    )
    total_s = time.perf_counter() - t0
    run = result.summary
    matches = pd.DataFrame(
        {
            MATCHES_HEADER[0]: result.pairs["event_id"].to_numpy(),
            MATCHES_HEADER[1]: result.pairs["sub_id"].to_numpy(),
        }
    ).sort_values(MATCHES_HEADER, ignore_index=True)
    out.table("matches", matches)
    workers_table = result.partitions.rename(columns={"partition": "worker"})
    workers_table.insert(1, "routing", args.routing)
    out.table("workers", workers_table)
    out.bad_records(report)
    out.summary(
        {
            "subscriptions": len(workload.subs),
            "events": len(workload.events),
            "matches": len(matches),
        },
        {"read_s": read_s, "spark_s": total_s, "route_s": run["route_s"]},
        algorithm=algorithm,
        routing=args.routing,
        catch_all=args.catch_all if args.routing == "access" else None,
        messages_per_event=run["messages_per_event"],
        broadcast_messages_per_event=n,
        messages_vs_broadcast=run["messages_per_event"] / n,
        imbalance={"checks": run["imbalance_checks"], "match_s": run["imbalance_match_s"]},
        throughput_eps=run["throughput_eps"] if math.isfinite(run["throughput_eps"]) else None,
        attribute_kinds=workload.kinds,
        attribute_kind_reasons=workload.kind_reasons,
    )
    slowest = result.partitions["match_s"].max()
    print(
        f"{len(matches):,} matches of {len(workload.events):,} events against "
        f"{len(workload.subs):,} subscriptions ({algorithm}, {n} instances, {args.routing} "
        f"routing: {run['messages_per_event']:.2f} messages per event, broadcast sends {n}; "
        f"slowest instance matched in {slowest * 1e3:.1f} ms) -> {out.dir}"
    )
    return 0


def _churn(args: argparse.Namespace) -> int:
    """``filtering churn``: :func:`routelab.filtering.churn.replay_churn` on the user's timed
    files."""
    import pandas as pd

    from routelab.errors import BadInputError
    from routelab.filtering.churn import replay_churn
    from routelab.filtering.io import MATCHES_HEADER

    (algorithm,) = algorithms(args)
    out = Outputs(args, "filtering churn")
    workload = read_files(args)
    if "time" not in workload.time_columns:
        raise BadInputError(
            f"{args.events}: no time column; `filtering churn` places events in time "
            "(header event_id,attr,value,time)"
        )
    if len(workload.subs) == 0 or len(workload.events) == 0:
        raise BadInputError(
            f"nothing to replay: {len(workload.subs)} usable subscriptions, "
            f"{len(workload.events)} usable events (see the bad-record report above)"
        )
    run = replay_churn(
        workload.subs, workload.events, workload.insert, workload.delete, workload.event_time,
        algorithm, seed=args.seed,
    )  # fmt: skip
    matches = pd.DataFrame(
        {MATCHES_HEADER[0]: run.pairs["event_id"], MATCHES_HEADER[1]: run.pairs["sub_id"]}
    )
    out.table("matches", matches)
    out.table("steps", run.steps)
    out.bad_records(workload.report)
    steps = run.steps
    out.summary(
        {
            "subscriptions": len(workload.subs),
            "events": len(workload.events),
            "inserted": int(steps["inserted"].sum()),
            "deleted": int(steps["deleted"].sum()),
            "batches": len(steps),
            "max_live": int(steps["live"].max()),
            "matches": len(matches),
            "tables_at_end": int(steps["tables"].iloc[-1]),
        },
        {"update_s": float(steps["update_s"].sum()), "match_s": float(steps["match_s"].sum())},
        algorithm=algorithm,
        attribute_kinds=workload.kinds,
        attribute_kind_reasons=workload.kind_reasons,
    )
    print(
        f"{len(matches):,} matches of {len(workload.events):,} events against "
        f"{len(workload.subs):,} subscriptions coming and going ({algorithm}: "
        f"{int(steps['inserted'].sum()):,} inserts, {int(steps['deleted'].sum()):,} deletes "
        f"over {len(steps):,} batches, at most {int(steps['live'].max()):,} live) -> {out.dir}"
    )
    return 0
