"""``routelab filtering``: Fabret et al.'s matchers on a neutral workload or on your files."""

from __future__ import annotations

import argparse
from pathlib import Path

from routelab.commands import add_master_option


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "filtering",
        help="Fabret et al.'s event matching: export a workload, match your own files",
        description="Export a workload of the paper's generator as neutral CSV files "
        "(subs.csv, events.csv, matches.csv) so another engine can run on exactly the same "
        "input, or match your own subs.csv/events.csv through the Spark dataflow.",
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    exp = sub.add_parser("export", help="write a generated workload as CSV files")
    exp.add_argument("--workload", default="W0", help="W0, W1op, W2op (default: %(default)s)")
    exp.add_argument("--n", type=int, required=True, help="number of subscriptions")
    exp.add_argument("--events", type=int, default=100, help="number of events (default: 100)")
    exp.add_argument("--seed", type=int, default=0)
    exp.add_argument("--out", required=True, metavar="DIR")
    exp.add_argument("--overwrite", action="store_true", help="replace existing files in DIR")
    exp.set_defaults(func=_export)
    mat = sub.add_parser("match", help="match events.csv against subs.csv on Spark")
    mat.add_argument("--subs", required=True, metavar="CSV", help="sub_id,attr,op,value rows")
    mat.add_argument("--events", required=True, metavar="CSV", help="event_id,attr,value rows")
    mat.add_argument(
        "--algorithm",
        default="propagation",
        help="counting, propagation, propagation_wp or static (default: %(default)s)",
    )
    mat.add_argument(
        "--partitions",
        type=int,
        default=2,
        help="matcher instances (Spark partitions) (default: %(default)s)",
    )
    mat.add_argument("--seed", type=int, default=0, help="seed of the subscription split")
    mat.add_argument("--out", required=True, metavar="DIR")
    mat.add_argument("--overwrite", action="store_true", help="replace existing files in DIR")
    add_master_option(mat)
    mat.set_defaults(func=_match)


def _out_dir(path: str, overwrite: bool, names: tuple[str, ...]) -> Path:
    from routelab.errors import BadInputError

    out = Path(path)
    if out.exists() and not out.is_dir():
        raise BadInputError(f"--out {out} is a file; give a directory")
    clash = [n for n in names if (out / n).exists()]
    if clash and not overwrite:
        raise BadInputError(f"{out} already holds {', '.join(clash)}; use --overwrite")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _export(args: argparse.Namespace) -> int:
    from routelab.errors import BadInputError
    from routelab.filtering.lab.interchange import write_matches, write_workload
    from routelab.filtering.matchers import build_matcher
    from routelab.filtering.workload import WORKLOADS, generate_events, generate_subscriptions

    if args.workload not in WORKLOADS:
        raise BadInputError(f"unknown workload {args.workload!r}; use {', '.join(WORKLOADS)}")
    if args.n < 1 or args.events < 1:
        raise BadInputError("--n and --events must be >= 1")
    out = _out_dir(args.out, args.overwrite, ("subs.csv", "events.csv", "matches.csv"))
    w = WORKLOADS[args.workload]
    subs = generate_subscriptions(w, args.n, seed=args.seed)
    events = generate_events(w, args.events, seed=args.seed)
    write_workload(out, subs, events)
    ptr, ids = build_matcher("counting", subs).match(events)
    import numpy as np

    write_matches(out / "matches.csv", np.repeat(events.ids, np.diff(ptr)), ids)
    print(
        f"{args.workload}: {args.n:,} subscriptions, {args.events:,} events, {len(ids):,} "
        f"matches (by counting, which the tests check against the oracle) -> {out}"
    )
    return 0


def _match(args: argparse.Namespace) -> int:
    import json
    import time

    from routelab.errors import BadInputError
    from routelab.filtering.dataflow import match_on_spark
    from routelab.filtering.lab.interchange import read_workload, write_matches
    from routelab.filtering.matchers import ALGORITHMS

    if args.algorithm not in ALGORITHMS:
        raise BadInputError(f"unknown algorithm {args.algorithm!r}; use {', '.join(ALGORITHMS)}")
    if args.partitions < 1:
        raise BadInputError("--partitions must be >= 1")
    out = _out_dir(args.out, args.overwrite, ("matches.csv", "timings.json"))
    t0 = time.perf_counter()
    workload = read_workload(Path(args.subs), Path(args.events))
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
        algorithm=args.algorithm,
        partitions=args.partitions,
        seed=args.seed,
        spark=spark,
    )
    total_s = time.perf_counter() - t0
    write_matches(
        out / "matches.csv", result.pairs["event_id"].to_numpy(), result.pairs["sub_id"].to_numpy()
    )
    timings = {
        "algorithm": args.algorithm,
        "subscriptions": len(workload.subs),
        "events": len(workload.events),
        "matches": len(result.pairs),
        "read_s": read_s,
        "spark_s": total_s,
        "partitions": result.partitions.to_dict(orient="records"),
        "bad_records": report.to_dict(),
    }
    (out / "timings.json").write_text(json.dumps(timings, indent=2) + "\n")
    slowest = result.partitions["match_s"].max()
    print(
        f"{len(result.pairs):,} matches of {len(workload.events):,} events against "
        f"{len(workload.subs):,} subscriptions ({args.algorithm}, {args.partitions} "
        f"instances; slowest instance matched in {slowest * 1e3:.1f} ms) -> {out}"
    )
    return 0
