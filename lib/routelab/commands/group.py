"""``routelab group``: run grouping schemes (PKG, FISH and their baselines) over your keys."""

from __future__ import annotations

import argparse

from routelab.commands import add_master_option

DEFAULT_SCHEMES = ("kg", "sg", "pkg_local", "dchoices", "wchoices", "fish")


def register(subparsers: argparse._SubParsersAction) -> None:
    from routelab.grouping.schemes import SCHEMES

    parser = subparsers.add_parser(
        "group",
        help="route your own key stream with grouping schemes; imbalance, memory, throughput",
        description="Load a key stream (one key per line, or a CSV/TSV/Parquet column with "
        "optional timestamps), route it with each scheme over each worker count, and print "
        "(and optionally write) average and final imbalance, memory (key-worker pairs) and "
        "routing throughput per scheme. Keys that are not integers are hashed stably; a blank "
        "line or an unusable record is counted by reason and reported. Schemes: "
        + ", ".join(SCHEMES),
    )
    parser.add_argument("--keys", required=True, metavar="PATH", help="key file, folder or glob")
    parser.add_argument(
        "--format",
        choices=("text", "csv", "tsv", "parquet"),
        help="default: from the extension (no extension: text)",
    )
    parser.add_argument("--key-col", help="key column (CSV/TSV/Parquet)")
    parser.add_argument("--time-col", help="time column (optional; FISH's epochs use it)")
    parser.add_argument(
        "--schemes",
        nargs="+",
        default=list(DEFAULT_SCHEMES),
        metavar="NAME",
        help=f"schemes (default: {' '.join(DEFAULT_SCHEMES)})",
    )
    parser.add_argument(
        "--workers",
        nargs="+",
        type=int,
        default=[10],
        metavar="N",
        help="worker counts (default: 10)",
    )
    parser.add_argument(
        "--sources",
        type=int,
        default=1,
        help="parallel sources, messages assigned round robin (default: 1)",
    )
    parser.add_argument(
        "--source-col",
        help="column naming each message's source (CSV/TSV/Parquet); overrides --sources: "
        "one source per distinct value",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the hash choices")
    parser.add_argument("--out", metavar="FILE", help="also write the table (.csv or .json)")
    add_master_option(parser)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from pathlib import Path

    import numpy as np
    import pandas as pd

    from routelab.errors import BadInputError
    from routelab.grouping import simulate
    from routelab.grouping.schemes import SCHEMES

    unknown = [s for s in args.schemes if s not in SCHEMES]
    if unknown:
        raise BadInputError(f"unknown scheme(s) {unknown}; choose from {', '.join(SCHEMES)}")
    if any(w < 1 for w in args.workers) or args.sources < 1:
        raise BadInputError("--workers and --sources must be >= 1")
    if args.out and Path(args.out).suffix not in (".csv", ".json"):
        raise BadInputError(f"--out {args.out}: use a .csv or .json file name")
    from routelab.datasets.loaders import load_key_stream
    from routelab.spark import get_spark

    spark = get_spark(args.master, app_name="routelab-group", quiet=True)
    loaded = load_key_stream(spark, args.keys, args.key_col, args.time_col, fmt=args.format)
    # stream order = file order
    df = loaded.df.select("key", "ts", "file", "line")
    if args.source_col:
        if not args.key_col:
            raise BadInputError("--source-col needs a CSV/TSV/Parquet key column (--key-col)")
        srcs = load_key_stream(spark, args.keys, args.source_col, fmt=args.format)
        if srcs.report.bad:
            print(f"source column {args.source_col!r}:\n{srcs.report}")
        df = df.join(
            srcs.df.select("file", "line", srcs.df["key"].alias("source")), ["file", "line"]
        )
    frame = df.orderBy("file", "line").toPandas()
    loaded.unpersist()
    if loaded.report.bad:
        print(loaded.report)
    if frame.empty:
        raise BadInputError(f"{args.keys}: no usable keys (see the report above)")
    keys = frame["key"].to_numpy(np.int64)
    times = None
    if args.time_col:
        if frame["ts"].isna().any():
            raise BadInputError(f"{args.keys}: --time-col {args.time_col} has empty values")
        times = (frame["ts"] - frame["ts"].iloc[0]).dt.total_seconds().to_numpy()
        if (np.diff(times) < 0).any():
            raise BadInputError(f"{args.keys}: times go backwards; sort the stream by time")
    sources, n_sources = None, args.sources
    if args.source_col:
        _, sources = np.unique(frame["source"].to_numpy(np.int64), return_inverse=True)
        n_sources = int(sources.max()) + 1
    rows = []
    for scheme in args.schemes:
        for workers in args.workers:
            result = simulate(
                keys,
                scheme,
                workers,
                n_sources=n_sources,
                seed=args.seed,
                times=times,
                sources=sources,
            )
            s = result.summary()
            rows.append(
                {
                    "scheme": s["label"],
                    "workers": workers,
                    "sources": n_sources,
                    "messages": s["n_messages"],
                    "keys": s["n_keys"],
                    "avg_imbalance": s["avg_imbalance"],
                    "avg_imbalance_fraction": s["avg_imbalance_fraction"],
                    "final_imbalance": s["final_imbalance"],
                    "max_load": s["max_load"],
                    "memory_pairs": s["memory"],
                    "memory_per_key": s["memory_normalized"],
                    "messages_per_s": result.messages_per_second,
                }
            )
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", None):
        print(table.to_string(index=False, float_format=lambda v: f"{v:,.4g}"))
    if args.out:
        out = Path(args.out)
        if out.suffix == ".csv":
            table.to_csv(out, index=False)
        else:
            table.to_json(out, orient="records", indent=2)
        print(f"written to {out}")
    return 0
