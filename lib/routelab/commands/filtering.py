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
    from routelab.filtering.dataflow import ROUTINGS
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
        description="Partition the subscriptions over --workers matcher instances (Spark "
        "partitions, each running --algorithm) and send every event to each of them, or "
        "(--routing access) only to the instances whose access predicates it satisfies; "
        "write OUT/matches.<format> (event_id, subscription_id), OUT/workers.<format> (per "
        "instance: subscriptions, events received, build and match seconds, matches, "
        "checks), OUT/summary.json (with messages per event, load imbalance, throughput) "
        "and OUT/bad_records.json (reason, file:line, excerpt of every unusable row).",
    )
    mat.add_argument(
        "--subs",
        required=True,
        metavar="CSV",
        help="sub_id,attr,op,value rows; op one of < <= = != >= > (a subscription is the "
        "conjunction of its rows)",
    )
    mat.add_argument("--events", required=True, metavar="CSV", help="event_id,attr,value rows")
    mat.add_argument(
        "--types",
        metavar="ATTR=KIND[,...]",
        help="declare attribute kinds (int, float, str), e.g. price=float,carrier=str; an "
        "undeclared attribute is numeric when most of its values are numbers",
    )
    add_algorithm_option(mat, MATCHERS, "propagation", many=False)
    add_workers_option(mat, 2, many=False)
    mat.add_argument(
        "--routing",
        choices=ROUTINGS,
        default="broadcast",
        help="broadcast: subscriptions hashed by id, every event to every instance; access "
        "(beyond the paper): whole access-predicate groups (the equality of least nu of each "
        "subscription) per instance, balanced on expected checks, each event only to the "
        "instances owning an equality it satisfies (and those holding subscriptions without "
        "one) (default: %(default)s)",
    )
    mat.add_argument(
        "--seed", type=int, default=0, help="seed of the subscription split (broadcast routing)"
    )
    add_output_options(mat)
    add_master_option(mat)
    mat.set_defaults(func=_match)


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
    from pathlib import Path

    import pandas as pd

    from routelab.errors import BadInputError
    from routelab.filtering.dataflow import match_on_spark
    from routelab.filtering.io import MATCHES_HEADER, parse_types, read_workload

    (algorithm,) = algorithms(args)
    (n,) = workers(args)
    types = parse_types(args.types)
    out = Outputs(args, "filtering match")
    t0 = time.perf_counter()
    workload = read_workload(Path(args.subs), Path(args.events), types)
    read_s = time.perf_counter() - t0
    report = workload.report
    if report.bad:
        print(report)
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
        messages_per_event=run["messages_per_event"],
        imbalance={"checks": run["imbalance_checks"], "match_s": run["imbalance_match_s"]},
        throughput_eps=run["throughput_eps"] if math.isfinite(run["throughput_eps"]) else None,
    )
    slowest = result.partitions["match_s"].max()
    print(
        f"{len(matches):,} matches of {len(workload.events):,} events against "
        f"{len(workload.subs):,} subscriptions ({algorithm}, {n} instances, {args.routing} "
        f"routing: {run['messages_per_event']:.2f} messages per event; slowest instance "
        f"matched in {slowest * 1e3:.1f} ms) -> {out.dir}"
    )
    return 0
