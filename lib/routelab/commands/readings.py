"""``routelab readings``: the readings a run can flip, and the verdicts they decide."""

from __future__ import annotations

import argparse
from pathlib import Path

from routelab.profiles import PROFILE_NAMES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "readings",
        help="readings of the papers a run can flip, and the claims they were found to decide",
        description="READINGS.md lists how routelab reads what the papers leave open. A "
        "reading listed by `routelab readings list` can be flipped for a whole run "
        "(ROUTELAB_READING=<key> routelab figures --only NN); `record` compares that run "
        "with a default run of the same notebook and keeps the claims whose verdict differs "
        "in lib/routelab/conf/reading_verdicts.json, and the notebook's claims table then "
        "names the reading in those rows' notes.",
    )
    sub = parser.add_subparsers(dest="readings_command", metavar="ACTION", required=True)
    p_list = sub.add_parser(
        "list",
        help="the flippable readings and what their recorded runs found",
        description="Every reading ROUTELAB_READING can flip: its key, its READINGS.md "
        "title, the alternative, the notebooks it reaches and, per recorded run, the claims "
        "whose verdict it decides.",
    )
    p_list.add_argument(
        "--one-run",
        action="store_true",
        help="only the entries whose moved rows rest on one flipped run (not regraded from "
        "saved measurements): the ones a second flipped run should confirm",
    )
    p_list.set_defaults(func=_list)
    p_rec = sub.add_parser(
        "record",
        help="compare a default run and a flipped run of one notebook; keep the differences",
        description="BASE and FLIPPED are results.json files (or figures directories "
        "holding one notebook's) of one notebook and profile: BASE a default run, FLIPPED "
        "a run with ROUTELAB_READING set. The claims whose verdict differs are stored in "
        "the ledger (replacing an earlier entry of the same reading, notebook and profile).",
    )
    p_rec.add_argument("base", type=Path, metavar="BASE", help="the default run")
    p_rec.add_argument("flipped", type=Path, metavar="FLIPPED", help="the run under the flip")
    p_rec.add_argument(
        "--ledger", type=Path, default=None, help="the ledger file (default: the package's)"
    )
    p_rec.add_argument(
        "--control",
        type=Path,
        action="append",
        default=[],
        metavar="RUN",
        help="another default run (repeatable): rows it moves against BASE are noise, not kept",
    )
    p_rec.add_argument(
        "--confirm",
        type=Path,
        default=None,
        metavar="RUN",
        help="a second run under the same readings: only the rows both flipped runs move to "
        "the same verdict are kept, the others listed as unconfirmed",
    )
    p_rec.set_defaults(func=_record)
    p_scr = sub.add_parser(
        "screen",
        help="find which readings decide which rows of one notebook (bisecting a screen)",
        description="Run NOTEBOOK with every reading that reaches it flipped together; where "
        "that moves rows, run each half of the readings, down to single readings (about "
        "1 + 2 log2(k) runs for one deciding reading among k, each a full `routelab "
        "figures --only NOTEBOOK` run). Prints what each reading (or a group, for rows only "
        "the readings together move) decides; --record stores every finding in the ledger.",
    )
    p_scr.add_argument("notebook", metavar="NOTEBOOK", help="the notebook (name or prefix)")
    p_scr.add_argument(
        "--keys", default=None, help="comma-separated readings (default: every one reaching it)"
    )
    p_scr.add_argument(
        "--skip", default="", help="comma-separated readings left out (e.g. one that cannot run)"
    )
    p_scr.add_argument(
        "--base",
        type=Path,
        default=None,
        help="a default run of the notebook (results.json or its directory); run first if absent",
    )
    p_scr.add_argument(
        "--profile",
        choices=PROFILE_NAMES,
        default="default",
        help="the profile of every run (default: %(default)s)",
    )
    p_scr.add_argument(
        "--out",
        type=Path,
        default=None,
        help="where the runs go, one folder per notebook, profile and set of readings "
        "(default: papermill_runs/reading_screen)",
    )
    p_scr.add_argument(
        "--control",
        type=Path,
        action="append",
        default=[],
        metavar="RUN",
        help="another default run beside --base (repeatable): the rows it moves against the "
        "base are the machine's noise, left out of every run (they neither drive the bisection "
        "nor are recorded)",
    )
    p_scr.add_argument("--timeout", type=float, default=None, help="seconds per run")
    p_scr.add_argument(
        "--resume",
        action="store_true",
        help="take each run already under --out that finished on this commit with the same "
        "readings and profile instead of running it again (a screen stopped part-way goes on)",
    )
    p_scr.add_argument(
        "--confirm",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run a single reading that moves rows, or a group that moves rows none of its "
        "halves does, a second time and keep only the rows both runs move to the same verdict "
        "(default: on; --no-confirm takes one run's word)",
    )
    p_scr.add_argument(
        "--regrade",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="regrade the default run's saved measurements for readings that change only a "
        "rule, where the notebook can (default: on; --no-regrade runs the notebook for them)",
    )
    p_scr.add_argument("--record", action="store_true", help="store the findings in the ledger")
    p_scr.add_argument(
        "--ledger",
        type=Path,
        default=None,
        help="the ledger --record writes (default: the package's; a screen run in a clone of "
        "the repository writes outside it, so the clone stays clean and --resume keeps working)",
    )
    p_scr.set_defaults(func=_screen)


def _list(args: argparse.Namespace) -> int:
    from routelab.readings import FLIP_ENV, FLIPS, load_ledger, rests_on_one_run

    ledger = load_ledger()
    if args.one_run:
        ledger = [e for e in ledger if rests_on_one_run(e)]
    for key, flip in FLIPS.items():
        entries = [e for e in ledger if key in e["key"].split(",")]
        if args.one_run and not entries:
            continue
        print(f"{key}: {flip.title}")
        print(f"    alternative: {flip.alternative} ({flip.parameter})")
        print(f"    reaches: {', '.join(flip.notebooks)}; flip a run with {FLIP_ENV}={key}")
        for e in entries:
            found = "; ".join(
                f"'{d['claim']}' {d['default']} -> {d['alternative']}" for d in e["differs"]
            )
            others = [k for k in e["key"].split(",") if k != key]
            group = f", flipped together with {len(others)} more" if others else ""
            print(
                f"    {e['notebook']} ({e['profile']}, {e['commit'][:7]} / "
                f"{e['flipped_commit'][:7]}{group}): {len(e['differs'])} of {e['compared']} "
                f"rows differ{' (kept: the rows no run of fewer of these readings moved)' if e.get('filtered') else ''}"
                f"{': ' + found if found else ''}"
            )
            if e.get("regraded"):
                print("      regraded from the default run's saved measurements (exact)")
            elif e.get("runs", 1) > 1:
                print(f"      {e['runs']} flipped runs agree on every row")
            elif rests_on_one_run(e):
                print("      one flipped run (no second run confirmed these rows)")
            if e.get("unconfirmed"):
                print(f"      left out, a second flipped run does not move them the same way: "
                      f"{'; '.join(e['unconfirmed'])}")  # fmt: skip
            if e.get("noisy"):
                print(f"      left out as noise (a control default run moves them too): "
                      f"{'; '.join(e['noisy'])}")  # fmt: skip
    if args.one_run:
        print(f"{len(ledger)} entries move rows on one flipped run; confirm each with "
              "`routelab readings screen NN --keys KEY --base RUN --control RUN --record`")  # fmt: skip
    return 0


def _record(args: argparse.Namespace) -> int:
    from routelab.readings import record

    entry = record(args.base, args.flipped, args.ledger, controls=args.control,
                   confirm=args.confirm)  # fmt: skip
    print(
        f"{entry.notebook} ({entry.profile}) under '{entry.key}': {len(entry.differs)} of "
        f"{entry.compared} rows differ"
    )
    for d in entry.differs:
        print(f"  {d['claim']}: {d['default']} -> {d['alternative']}")
    for claim in entry.noisy:
        print(f"  (left out as noise, a control moves it too: {claim})")
    for claim in entry.unconfirmed:
        print(f"  (left out, the second flipped run does not move it the same way: {claim})")
    return 0


def _screen(args: argparse.Namespace) -> int:
    from routelab import reading_screen as rs
    from routelab.paths import runs_dir
    from routelab.readings import record
    from routelab.runs import discover_notebooks

    (path,) = discover_notebooks([args.notebook])  # an unknown or ambiguous name: its error
    notebook = path.stem
    skip = [k for k in args.skip.split(",") if k]
    reach = rs.reaching(notebook, skip)  # checks the skipped keys too
    keys = [k for k in args.keys.split(",") if k and k not in skip] if args.keys else reach
    out = args.out if args.out is not None else runs_dir() / "reading_screen"
    runner = rs.figures_runner(
        notebook, args.profile, out / notebook, args.timeout, resume=args.resume
    )
    regrade = (
        rs.regrader(notebook, out / notebook / args.profile / "regraded") if args.regrade else None
    )
    result = rs.screen(notebook, keys, runner, base=args.base, controls=args.control,
                       regrade=regrade, confirm=args.confirm)  # fmt: skip
    seconds = sum(s for _, s in result.runs)
    print(f"{notebook}: {len(result.runs)} run(s), {seconds / 60:.1f} min; findings:")
    for f in result.findings:
        who = ("together: " if f.together else "") + ",".join(f.keys)
        how = " (regraded)" if f.regraded else " (two runs agree)" if f.confirm else ""
        print(f"  {who}: {len(f.moved)} row(s){how}")
        for claim, (a, b) in f.moved.items():
            print(f"    {claim}: {a} -> {b}")
        for claim, (a, b) in f.unconfirmed.items():
            print(f"    (not confirmed by the second run, left out: {claim}: {a} -> {b})")
        if args.record:
            only = set(f.moved) | set(f.unconfirmed) if f.together else None
            record(result.base, f.path, only=only,
                   together=f.together, controls=args.control, ledger=args.ledger,
                   confirm=f.confirm)  # fmt: skip
    for claim, seen in result.noisy.items():
        print(f"  left out as noise: {claim} ({' / '.join(seen)} in the default runs)")
    return 0
