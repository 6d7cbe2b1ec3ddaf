"""``routelab bench``: run the benchmarks and print figures with ratios against baselines.

Two verbs: ``run`` (the default: ``routelab bench [NAME...]`` is ``routelab bench run
[NAME...]``) measures the work tree beside same-run baselines; ``compare --ref REF``
measures an earlier commit and the work tree interleaved (:mod:`routelab.benchcompare`).
"""

from __future__ import annotations

import argparse
import sys

from routelab.commands import Outputs, add_output_options

#: ``routelab bench`` followed by no verb runs this one (``routelab.cli`` inserts it)
DEFAULT_VERB = "run"


def register(subparsers: argparse._SubParsersAction) -> None:
    from routelab.benchcompare import DEFAULT_ROUNDS, THRESHOLD
    from routelab.benchmarks import BENCHMARKS

    listing = "; ".join(f"{name}: {desc}" for name, (_, _, desc) in BENCHMARKS.items())
    parser = subparsers.add_parser(
        "bench",
        help="run speed benchmarks (figures and ratios vs same-run baselines or an earlier commit)",
        description="Benchmarks print measured speed beside a baseline measured in the same "
        "run (`routelab bench run`, also plain `routelab bench [NAME...]`) or beside the same "
        "benchmark on an earlier commit (`routelab bench compare --ref REF`). "
        f"Available: {listing}",
    )
    parser.set_defaults(_default_verb=DEFAULT_VERB)
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    run = verbs.add_parser(
        "run",
        help="figures beside same-run baselines (the default verb)",
        description="Run the benchmarks on the work tree; each figure beside a baseline "
        "measured in the same run, and its goal.",
    )
    run.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run (default: all)")
    run.add_argument("--quick", action="store_true", help="smaller inputs (a quick check)")
    add_output_options(run, required=False)
    run.set_defaults(func=_run)

    cmp = verbs.add_parser(
        "compare",
        help="the same benchmarks on an earlier commit and the work tree, interleaved",
        description="Check out REF in a temporary git worktree (removed afterwards), run the "
        "benchmarks on REF and on the work tree in turn (REF, HEAD, REF, HEAD, ...; a fresh "
        "process each, each side importing its own lib/), and print per figure REF's and "
        "HEAD's medians, HEAD/REF and the range of the rounds' paired ratios; a figure more "
        f"than {100 * THRESHOLD:.0f} % slower on HEAD (in the figure's own direction: rates "
        "higher, times lower) is flagged. Writes the raw rounds as JSON and appends one line "
        "to history.jsonl in --out.",
    )
    cmp.add_argument(
        "--ref",
        required=True,
        metavar="REF",
        help="the earlier commit: an id, branch, tag or e.g. HEAD~1",
    )
    cmp.add_argument(
        "names", nargs="*", metavar="NAME", help="benchmarks to compare (default: all)"
    )
    cmp.add_argument(
        "--rounds",
        type=int,
        default=DEFAULT_ROUNDS,
        metavar="K",
        help="rounds, each running REF then HEAD (default: %(default)s)",
    )
    cmp.add_argument("--quick", action="store_true", help="smaller inputs (a quick check)")
    cmp.add_argument(
        "--threshold",
        type=float,
        default=THRESHOLD,
        metavar="F",
        help="flag a figure whose HEAD cost exceeds REF's by more than this fraction "
        "(default: %(default)s)",
    )
    cmp.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="where the raw rounds (compare-*.json) and history.jsonl go (default: "
        "papermill_runs/bench); files accumulate, one raw file per run",
    )
    cmp.add_argument(
        "--fail-if-slower",
        action="store_true",
        help="exit with status 1 when a figure is flagged (for scripts and CI)",
    )
    cmp.set_defaults(func=_compare)


def _run(args: argparse.Namespace) -> int:
    import pandas as pd

    from routelab.benchmarks import BENCHMARKS, format_rows, run_benchmarks
    from routelab.errors import BadInputError

    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        raise BadInputError(
            f"unknown benchmark {', '.join(map(repr, unknown))}; choose from "
            f"{', '.join(BENCHMARKS)}"
        )
    out = Outputs(args, "bench run") if args.out else None
    rows = run_benchmarks(args.names or None, quick=args.quick)
    print(format_rows(rows))
    if out is not None:
        out.table("results", pd.DataFrame(rows))
        out.bad_records(None)
        out.summary({"rows": len(rows)}, benchmarks=args.names or "all")
        print(f"written to {out.dir}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from pathlib import Path

    from routelab.benchcompare import compare, format_comparison
    from routelab.errors import BadInputError

    if not 0 <= args.threshold < 10:
        raise BadInputError(f"--threshold {args.threshold}: give a fraction such as 0.1")
    result = compare(
        args.ref,
        args.names or None,
        rounds=args.rounds,
        quick=args.quick,
        out_dir=Path(args.out) if args.out else None,
        threshold=args.threshold,
    )
    print(f"REF {args.ref} = {result.ref_commit[:10]}   HEAD = {result.head_commit[:10]}", end="")
    print(" (lib/ modified)" if result.head_dirty else "")
    print(format_comparison(result.figures, result.problems))
    flagged = result.flagged
    print(
        f"{len(flagged)} of {len(result.figures)} figure(s) slower by more than "
        f"{100 * args.threshold:.0f} %"
    )
    if args.rounds < 3:
        print(
            f"note: {args.rounds} round(s) give little or no spread; a flag is worth "
            "believing when the rounds agree (--rounds 3 or more)"
        )
    print(f"raw rounds: {result.raw_path}\nhistory:    {result.history_path}")
    if result.head_errors:
        for name, error in result.head_errors.items():
            print(
                f"routelab bench compare: {name} failed on the work tree: {error}", file=sys.stderr
            )
        return 1
    return 1 if flagged and args.fail_if_slower else 0
