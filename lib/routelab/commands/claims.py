"""``routelab claims``: every notebook's claims table in the terminal."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from routelab import dashboard
from routelab.claims import VERDICTS, declared_rows
from routelab.errors import BadInputError
from routelab.paths import figures_dir
from routelab.report import CLAIM_KEYS

#: the options ``--declared`` refuses (it lists the declarations before any run)
_RUN_OPTIONS = ("verdict", "against", "figures", "checks", "beyond", "per_paper", "check")


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
    parser.add_argument(
        "--against",
        type=Path,
        metavar="OTHER",
        help="compare with another run instead of printing: OTHER is a figures directory, a "
        "notebook's directory or a results.json; prints each row whose fields differ (and "
        "rows or notebooks in one run only), e.g. a run at another commit or under a "
        "flipped reading (ROUTELAB_READING)",
    )
    parser.add_argument(
        "--figures",
        type=Path,
        metavar="DIR",
        help="the run to read: a figures directory, a notebook's directory or a results.json "
        "(default: the figures directory, ROUTELAB_FIGURES_DIR)",
    )
    parser.add_argument(
        "--fields",
        nargs="+",
        default=list(dashboard.COMPARED_FIELDS),
        metavar="FIELD",
        help="with --against: the fields compared (default: %(default)s; e.g. verdict "
        "measured note)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="with --against: exit with status 1 when the runs differ",
    )
    parser.add_argument(
        "--declared",
        action="store_true",
        help="print the rows every notebook declares (each lab's claims.toml: the statement, "
        "where the paper makes it, the paper's value, what we measure, the rule, the kind), "
        "without a run; --only filters by lab (e.g. s3tm.lab.routing)",
    )
    parser.set_defaults(func=_run)


def _only(rows: list[dict], only: list[str] | None, key: str) -> list[dict]:
    """``rows`` whose ``key`` starts with one of the names ``only`` (every row without it)."""
    return [r for r in rows if not only or any(r[key].startswith(n) for n in only)]


def _run(args: argparse.Namespace) -> int:
    unknown = sorted(set(args.verdict or []) - set(VERDICTS))
    if unknown:
        raise BadInputError(f"unknown verdict(s) {unknown}; choose from {', '.join(VERDICTS)}")
    if args.declared:
        return _declared(args)
    run = dashboard.load_results() if args.figures is None else dashboard.results_at(args.figures)
    results = _only(run, args.only, "notebook")
    if not results:
        raise BadInputError(
            f"no results.json under {args.figures or figures_dir()}: run `routelab figures` "
            "(or a notebook) first"
        )
    if args.against is not None:
        return _compare(args, results)
    if args.check or args.fields != list(dashboard.COMPARED_FIELDS):
        raise BadInputError("--fields and --check compare two runs: give --against OTHER")
    if args.per_paper:
        print(dashboard.format_table(dashboard.paper_table(results), args.format))
        return 0
    frame = dashboard.claims_frame(results)
    kinds = ["claim"]
    if args.checks:
        kinds.append("check")
    if args.beyond:
        kinds.append("beyond")
    frame = frame[frame["kind"].isin(kinds)]
    if args.verdict:
        frame = frame[frame["verdict"].isin(args.verdict)]
    print(dashboard.format_claims(frame, args.format))
    return 0


def _compare(args: argparse.Namespace, results: list[dict]) -> int:
    unknown = sorted(set(args.fields) - set(CLAIM_KEYS))
    if unknown:
        raise BadInputError(f"unknown field(s) {unknown}; choose from {', '.join(CLAIM_KEYS)}")
    other = _only(dashboard.results_at(args.against), args.only, "notebook")
    ours_nb, other_nb = (sorted(r["notebook"] for r in run) for run in (results, other))
    both = set(ours_nb) & set(other_nb)
    if not both:
        raise BadInputError(
            f"no notebook in both runs: {ours_nb} in {args.figures or 'the figures directory'}, "
            f"{other_nb} in {args.against}"
        )
    if len(other_nb) == 1 or len(ours_nb) == 1:  # one notebook's run: compare that one
        results, other = ([r for r in run if r["notebook"] in both] for run in (results, other))
    diff = dashboard.claims_diff(results, other, tuple(args.fields))
    print(dashboard.format_diff(diff, len(both), args.format))
    return 1 if args.check and len(diff) else 0


def _declared(args: argparse.Namespace) -> int:
    given = [
        f"--{k.replace('_', '-')}" for k in _RUN_OPTIONS if getattr(args, k) not in (None, False)
    ]
    if given:
        raise BadInputError(
            f"--declared lists every declared row (claims, checks and rows beyond the papers) "
            f"before any run: it takes --only and --format, not {', '.join(given)}"
        )
    rows = _only(declared_rows(), args.only, "lab")
    if args.only and not rows:
        labs = sorted({r["lab"] for r in declared_rows()})
        raise BadInputError(f"no lab starts with {args.only}; the labs: {', '.join(labs)}")
    if args.format != "text":
        frame = pd.DataFrame(rows)
        frame["texts"] = ["; ".join(f"{k}: {v}" for k, v in t.items()) for t in frame["texts"]]
        print(dashboard.format_table(frame, args.format))
        return 0
    for r in rows:
        flags = r["kind"] + (", timing" if r["timing"] else "")
        print(f"{r['lab']} [{r['key']}] ({flags})\n  {r['claim']}\n  paper: {r['paper']}")
        for field in ("paper_value", "measures", "rule", "note"):
            if r[field]:
                print(f"  {field.replace('_', ' ')}: {r[field]}")
        for name, text in r["texts"].items():
            print(f"  text {name}: {text}")
        print()
    return 0
