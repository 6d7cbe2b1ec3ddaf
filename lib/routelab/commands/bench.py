"""``routelab bench``: run the benchmarks and print figures with ratios against baselines."""

from __future__ import annotations

import argparse


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
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import json

    from routelab.benchmarks import format_rows, run_benchmarks

    rows = run_benchmarks(args.names or None, quick=args.quick)
    print(format_rows(rows))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2, default=str)
    return 0
