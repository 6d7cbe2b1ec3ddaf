"""``routelab bench``: run the benchmarks and print figures with ratios against baselines."""

from __future__ import annotations

import argparse

from routelab.commands import Outputs, add_output_options


def register(subparsers: argparse._SubParsersAction) -> None:
    from routelab.benchmarks import BENCHMARKS

    listing = "; ".join(f"{name}: {desc}" for name, (_, _, desc) in BENCHMARKS.items())
    parser = subparsers.add_parser(
        "bench",
        help="run speed benchmarks (figures and ratios vs same-run baselines)",
        description="Benchmarks print measured speed beside a baseline measured in the same "
        f"run, and the goal. Available: {listing}",
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="smaller inputs (a quick check)")
    add_output_options(parser, required=False)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import pandas as pd

    from routelab.benchmarks import format_rows, run_benchmarks

    out = Outputs(args, "bench") if args.out else None
    rows = run_benchmarks(args.names or None, quick=args.quick)
    print(format_rows(rows))
    if out is not None:
        out.table("results", pd.DataFrame(rows))
        out.bad_records(None)
        out.summary({"rows": len(rows)}, benchmarks=args.names or "all")
        print(f"written to {out.dir}")
    return 0
