"""``routelab compare run``: the five papers' routers side by side on a user's own posts
and interests (notebook 13's comparison, :mod:`routelab.compare`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from routelab.commands import (
    Outputs,
    add_algorithm_option,
    add_output_options,
    add_system,
    add_workers_option,
    algorithms,
    workers,
)

RUN_DESCRIPTION = """\
Route your own posts with every router of the five papers at the same --workers workers,
as notebook 13 does with the bundled tweets: S3-TM's word mappings (hash, SALB), key
grouping's schemes (kg, pkg_global, dchoices, wchoices, fish: PKG and FISH), PS2Stream's
partitioners (grid, kd-tree, frequency, metric, hybrid) and Fabret's matchers behind their
access routing (counting, propagation, static). The learned configurations are learned on
the first --train-windows of --windows equal windows of the time order and measured on the
whole stream; the routers run in this process.

Input:
  --posts       CSV/Parquet: id,text,lat,lon,ts[,author]   (ts: seconds, Unix time, UTC)
  --interests   CSV/Parquet: id,keywords,min_lat,min_lon,max_lat,max_lon[,hour_lo,hour_hi]
                keywords: words joined by AND (or side by side); no OR. hours: 0-23, both
                included (default the whole day)

Each system reads an interest in its own form: S3-TM its words; PS2Stream its words in its
rectangle; Fabret "topic = the interest AND region = its rectangle's centre's region AND
hour_lo <= hour <= hour_hi" (every interest is its own topic; a post's topic is the
interest of which it holds the largest share of words), so Fabret's answer differs from the
word matches by design; key grouping routes each post's @author (if given) and #hashtags as keys. Texts and
keywords are cleaned and stemmed alike ("vaccines" matches "vaccine").

Writes to --out:
  results.<format>   per router and worker count: imbalance (max / mean messages per
                     worker), replication (copies per tuple; key grouping: workers per
                     key), throughput_x (tuples / messages at the busiest worker: N at
                     best, more where a post is sent nowhere, as Fabret's unmatchable
                     posts), state_max and state_unit, busiest_s (measured, PS2Stream and
                     Fabret), learn_s, matches (the system's answer size: S3-TM,
                     PS2Stream and Fabret)
  matches.<format>   system, post_id, interest_id: each matching system's answer (through
                     its first selected router at the first worker count)
  summary.json       parameters, counts, timings, routelab version and commit
  bad_records.json   unusable records by reason, with file:line examples
"""

#: the columns of ``results`` (the per-window lists of :meth:`Routing.row` stay out)
RESULT_COLUMNS = ("system", "router", "n_workers", "tuples", "imbalance", "replication",
                  "throughput_x", "state_max", "state_unit", "busiest_s", "learn_s",
                  "workers_per_key", "matches")  # fmt: skip


def register(subparsers: argparse._SubParsersAction) -> None:
    from routelab.compare.routers import ROUTER_REGISTRY

    verbs = add_system(
        subparsers,
        "compare",
        help="the five papers' routers side by side on your own posts and interests",
        description="Notebook 13's comparison on your data: S3-TM, key grouping (PKG, "
        "FISH), PS2Stream and Fabret et al. route the same posts to the same N workers.",
    )
    r = verbs.add_parser(
        "run",
        help="imbalance, replication, throughput and state of every router on --posts",
        description=RUN_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument(
        "--posts", required=True, metavar="FILE", help="CSV/Parquet: id,text,lat,lon,ts[,author]"
    )
    r.add_argument(
        "--interests",
        required=True,
        metavar="FILE",
        help="CSV/Parquet: id,keywords,min_lat,min_lon,max_lat,max_lon[,hour_lo,hour_hi]",
    )
    add_algorithm_option(r, ROUTER_REGISTRY, "all")
    add_workers_option(r, 4, high=256)
    r.add_argument(
        "--windows",
        type=int,
        default=12,
        help="equal windows of the time order (default: %(default)s)",
    )
    r.add_argument(
        "--train-windows",
        type=int,
        default=3,
        help="the first windows the learned routers learn on (default: %(default)s)",
    )
    r.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the hash choices, partitioners and learners (default: %(default)s)",
    )
    add_output_options(r)
    r.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import time

    import pandas as pd

    from routelab.badrecords import BadRecordReport
    from routelab.compare.routers import route, system_named, system_of
    from routelab.compare.stream import key_stream
    from routelab.compare.user import read_user_compare
    from routelab.errors import BadInputError
    from routelab.progress import tqdm

    routers = algorithms(args)
    counts = workers(args, high=256)
    if args.windows < 2 or not 1 <= args.train_windows < args.windows:
        raise BadInputError(
            f"need --windows >= 2 and 1 <= --train-windows < --windows, got {args.windows} "
            f"and {args.train_windows}"
        )
    out = Outputs(args, "compare run")
    bad = BadRecordReport()
    data = read_user_compare(Path(args.posts), Path(args.interests), bad, args.windows)
    if bad.bad:
        print(bad)
    stream, interests = data.stream, data.interests
    n_keys = len(key_stream(stream)[0])
    skipped = []
    if n_keys == 0:
        skipped = [r for r in routers if system_named(system_of(r)).routes_keys]
        routers = [r for r in routers if r not in skipped]
        if skipped:
            names = ", ".join(dict.fromkeys(system_of(r) for r in skipped))
            print(f"{names} skipped: no post has an author or a #hashtag ({args.posts})")
    if not routers:
        raise BadInputError("no router left to run (see above)")
    # each matching system's answer, through its first selected router
    kw = {"train_windows": args.train_windows, "seed": args.seed}
    t0 = time.perf_counter()
    answers: dict[str, set[tuple[int, int]]] = {}
    asked: set[str] = set()
    for router in routers:
        system = system_named(system_of(router))
        if system.name not in asked:
            asked.add(system.name)
            pairs = system.answer(router, counts[0], stream, interests, **kw)
            if pairs is not None:
                answers[system.name] = pairs
    answer_s = time.perf_counter() - t0
    rows = []
    points = [(r, n) for r in routers for n in counts]
    t0 = time.perf_counter()
    for router, n in tqdm(points, desc="routers", unit="router"):
        system = system_of(router)
        row = route(system, router, n, stream, interests, **kw).row()
        row["matches"] = len(answers[system]) if system in answers else None
        rows.append({c: row.get(c) for c in RESULT_COLUMNS})
    route_s = time.perf_counter() - t0
    table = pd.DataFrame(rows)
    for col in ("workers_per_key", "matches"):  # counts, empty where a system has none
        table[col] = pd.array(table[col].tolist(), dtype="Int64")
    matches = pd.DataFrame(
        [
            (system, data.post_ids[p], data.interest_ids[s])
            for system, pairs in answers.items()
            for s, p in sorted(pairs, key=lambda sp: (sp[1], sp[0]))
        ],
        columns=["system", "post_id", "interest_id"],
    )
    from routelab.report import number_text

    with pd.option_context("display.width", 200, "display.max_columns", None):
        print(table.drop(columns=["tuples"]).to_string(index=False, float_format=number_text))
    out.table("results", table)
    out.table("matches", matches)
    out.bad_records(bad)
    out.summary(
        {
            "posts": len(stream),
            "interests": len(interests),
            "key_messages": n_keys,
            "windows": args.windows,
            **{f"matches_{s}": len(p) for s, p in answers.items()},
        },
        {"answers_s": answer_s, "route_s": route_s},
        routers=routers,
        skipped=skipped,
        authors=data.authors,
    )
    best = table.loc[table.groupby("system")["throughput_x"].idxmax()]
    print(
        f"{len(stream):,} posts, {len(interests):,} interests, {len(routers)} routers x "
        f"{len(counts)} worker count(s); highest throughput_x per system: "
        + ", ".join(
            f"{r.system} {r.router} {r.throughput_x:.2f}x at {r.n_workers}"
            for r in best.itertuples()
        )
        + f" -> {out.dir}"
    )
    return 0
