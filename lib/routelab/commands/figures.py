"""``routelab figures``: regenerate every figure by running the notebooks with papermill."""

from __future__ import annotations

import argparse

from routelab.commands import add_master_option
from routelab.profiles import PROFILE_NAMES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "figures",
        help="run the notebooks headlessly (papermill) and regenerate their figures",
        description="Execute notebooks/NN_*.ipynb with papermill under a profile. Executed "
        "notebooks and run_log.json go to papermill_runs/<profile>/, figures (HTML, PNG, "
        "SVG) and results.json to figures/<notebook>/. A failing notebook is reported with "
        "its failing cell; the others still run; the exit code is 1 if any failed.",
    )
    parser.add_argument(
        "--profile",
        choices=PROFILE_NAMES,
        default="default",
        help="smoke: seconds per notebook (tests); default: bundled real "
        "data, 39-89 min on 2 cores depending on the machine (an estimate is printed from earlier "
        "runs); paper: paper scale, hours (default: "
        "%(default)s)",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        help="run only these notebooks (name, e.g. 01_corpus, or prefix 01)",
    )
    parser.add_argument(
        "--timeout", type=int, default=None, help="per-cell timeout in seconds (default: none)"
    )
    parser.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a notebook parameter (VALUE read as JSON, else a string); explicit "
        "parameters win over the profile's values; repeatable",
    )
    add_master_option(parser)
    parser.add_argument("--list", action="store_true", help="list the notebooks and exit")
    parser.set_defaults(func=_run)


def parse_params(items: list[str]) -> dict[str, object]:
    """``["n=5", "name=abc", "sizes=[1,2]"]`` -> ``{"n": 5, "name": "abc", "sizes": [1, 2]}``."""
    import json

    from routelab.errors import BadInputError

    params: dict[str, object] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise BadInputError(f"-p expects NAME=VALUE, got {item!r}")
        try:
            params[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            params[name.strip()] = value
    return params


def _run(args: argparse.Namespace) -> int:
    import os

    from routelab.dashboard import last_runs, load_results, summary_lines, write_index
    from routelab.paths import figures_dir, runs_dir
    from routelab.runs import discover_notebooks, run_notebooks

    if args.list:
        for path in discover_notebooks(args.only):
            print(path.stem)
        return 0
    params = parse_params(args.param)
    if args.master:
        os.environ["ROUTELAB_SPARK_MASTER"] = args.master  # the kernels inherit it
    log = run_notebooks(args.profile, args.only, timeout=args.timeout, extra_parameters=params)
    index = write_index()
    ran = {r.notebook for r in log.runs}
    results = [r for r in load_results() if r["notebook"] in ran]
    runs = {k: v for k, v in last_runs().items() if k in ran}
    print("\n" + "\n".join(summary_lines(results, runs)))
    print(
        f"\n{len(log.runs) - len(log.failed)}/{len(log.runs)} notebooks ok in "
        f"{log.seconds:.0f} s; figures in {figures_dir()} (overview: {index}), executed "
        f"notebooks and run_log.json in {runs_dir() / args.profile}"
    )
    for run in log.failed:
        print(f"  {run.describe()}\n    executed notebook: {run.output}")
    return 0 if log.ok else 1
