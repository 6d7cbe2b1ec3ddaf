"""``routelab grouping run``: grouping schemes (PKG, FISH and their baselines) over your keys."""

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

DEFAULT_SCHEMES = ("kg", "sg", "pkg_local", "dchoices", "wchoices", "fish")


def register(subparsers: argparse._SubParsersAction) -> None:
    from routelab.grouping.schemes import SCHEMES

    verbs = add_system(
        subparsers,
        "grouping",
        help="PKG and FISH: route your own key stream with grouping schemes",
        description="Partial Key Grouping (Nasir et al.) and FISH: grouping schemes over a "
        "key stream.",
    )
    parser = verbs.add_parser(
        "run",
        help="imbalance, memory and routing throughput of each scheme over your keys",
        description="Load a key stream (one key per line, or a CSV/TSV/Parquet column with "
        "optional timestamps), route it with each scheme (--algorithm) over each worker count "
        "(--workers), and write OUT/results.<format> (average and final imbalance, memory as "
        "key-worker pairs, routing throughput per scheme and worker count), OUT/summary.json "
        "and OUT/bad_records.json. Keys that are not integers are hashed stably; a blank line "
        "or an unusable record is counted by reason and reported. Each scheme's kernel is "
        "compiled and warmed on the stream's first keys before it is timed (messages_per_s "
        "is routing alone; compile_s apart).",
    )
    parser.add_argument("--keys", required=True, metavar="PATH", help="key file, folder or glob")
    parser.add_argument(
        "--input-format",
        choices=("text", "csv", "tsv", "parquet"),
        help="format of --keys (default: from the extension; no extension: text)",
    )
    parser.add_argument("--key-col", help="key column (CSV/TSV/Parquet)")
    parser.add_argument("--time-col", help="time column (optional; FISH's epochs use it)")
    add_algorithm_option(parser, SCHEMES, DEFAULT_SCHEMES)
    add_workers_option(parser, 10)
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
    add_output_options(parser)
    add_master_option(parser)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import numpy as np
    import pandas as pd

    from routelab.errors import BadInputError
    from routelab.grouping import simulate

    schemes = algorithms(args)
    counts = workers(args)
    if args.sources < 1:
        raise BadInputError("--sources must be >= 1")
    if args.source_col and not args.key_col:
        raise BadInputError("--source-col needs a CSV/TSV/Parquet key column (--key-col)")
    from routelab.datasets.headers import file_format, local_files, require_columns

    files = local_files(args.keys)
    kind = args.input_format or (file_format(files[0]) if files else None)
    if kind in ("csv", "tsv", "parquet") and not args.key_col:
        raise BadInputError(f"{args.keys}: a {kind} key stream needs --key-col (the key column)")
    require_columns(
        args.keys,
        args.input_format,
        {"--key-col": args.key_col, "--time-col": args.time_col, "--source-col": args.source_col},
    )
    out = Outputs(args, "grouping run")
    from routelab.datasets.loaders import load_key_stream
    from routelab.spark import get_spark

    spark = get_spark(args.master, app_name="routelab-grouping", quiet=True)
    loaded = load_key_stream(spark, args.keys, args.key_col, args.time_col, fmt=args.input_format)
    # stream order = file order
    df = loaded.df.select("key", "ts", "file", "line")
    if args.source_col:
        srcs = load_key_stream(spark, args.keys, args.source_col, fmt=args.input_format)
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
    for scheme in schemes:
        for n_workers in counts:
            result = simulate(
                keys,
                scheme,
                n_workers,
                n_sources=n_sources,
                seed=args.seed,
                times=times,
                sources=sources,
            )
            s = result.summary()
            rows.append(
                {
                    "scheme": scheme,
                    "label": s["label"],
                    "workers": n_workers,
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
                    "compile_s": result.compile_seconds,
                }
            )
    table = pd.DataFrame(rows)
    from routelab.report import number_text

    with pd.option_context("display.width", 200, "display.max_columns", None):
        print(table.to_string(index=False, float_format=number_text))
    out.table("results", table)
    out.bad_records(loaded.report)
    out.summary(
        {"messages": int(len(keys)), "keys": int(len(np.unique(keys))), "sources": n_sources}
    )
    print(f"written to {out.dir}")
    return 0
