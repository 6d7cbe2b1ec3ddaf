"""``routelab claims``: every notebook's claims table in the terminal."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "claims",
        help="print every notebook's claims table (paper value, ours, verdict)",
        description="Read figures/*/results.json (written by the notebooks, e.g. through "
        "`routelab figures`) and print the claims: the paper's value, ours, the verdict and "
        "how it was computed. The same table is in figures/index.html.",
    )
    parser.add_argument(
        "--format",
        choices=("text", "markdown", "json"),
        default="text",
        help="output format (default: %(default)s)",
    )
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", help="only these notebooks (name or prefix)"
    )
    parser.add_argument(
        "--verdict",
        nargs="+",
        metavar="VERDICT",
        help="only rows with these verdicts (e.g. fails 'direction only')",
    )
    parser.add_argument("--checks", action="store_true", help="include checks, not only claims")
    parser.add_argument(
        "--beyond",
        action="store_true",
        help="include the rows about our own extensions beyond the papers (kind 'beyond'; "
        "never counted in a paper's tally)",
    )
    parser.add_argument(
        "--per-paper", action="store_true", help="print the verdict counts per paper instead"
    )
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from routelab.claims import VERDICTS
    from routelab.dashboard import claims_frame, format_claims, load_results
    from routelab.errors import BadInputError
    from routelab.paths import figures_dir

    unknown = sorted(set(args.verdict or []) - set(VERDICTS))
    if unknown:
        raise BadInputError(f"unknown verdict(s) {unknown}; choose from {', '.join(VERDICTS)}")
    results = load_results()
    if args.only:
        results = [r for r in results if any(r["notebook"].startswith(n) for n in args.only)]
    if not results:
        raise BadInputError(
            f"no results.json under {figures_dir()}: run `routelab figures` (or a notebook) first"
        )
    if args.per_paper:
        from routelab.dashboard import format_table, paper_table

        print(format_table(paper_table(results), args.format))
        return 0
    frame = claims_frame(results)
    kinds = (
        {"claim"} | ({"check"} if args.checks else set()) | ({"beyond"} if args.beyond else set())
    )
    frame = frame[frame["kind"].isin(kinds)]
    if args.verdict:
        frame = frame[frame["verdict"].isin(args.verdict)]
    print(format_claims(frame, args.format))
    return 0
