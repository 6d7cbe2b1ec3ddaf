"""``routelab spatial match|adjust``: a user's own spatio-textual stream through PS2Stream.

``match`` runs the dispatchers and workers as Spark tasks (PS2Stream Sects. III-IV);
``adjust`` replays the same files period by period with the load adjustment of Sect. V
(Phase I, then Phase II's Minimum Cost Migration by ``--selector``), locally.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

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

MATCH_DESCRIPTION = """\
Route a stream of spatio-textual objects and STS queries through PS2Stream's
dispatchers (gridt) and workers (GI2) as Spark tasks, partitioned by --algorithm
over --workers workers. Writes to --out:

  matches.<format>      object_id, query_id: every delivered pair
  workers.<format>      per worker:
    tuples, objects       tuples (objects, query inserts and deletes) and objects received
    candidate_checks      stored postings tested against an object (its (cell, keyword)
                          lists, PS2Stream's matching work)
    postings_inserted     postings written: one per grid cell a query overlaps, per
                          registering keyword (so one wide query can write hundreds)
    purge_visits          postings scanned when lazily deleted queries are purged
    peak_postings         the most postings the worker held at once
    stored_queries        queries stored at the end
    busy_s                seconds the worker spent on its tuples
  summary.json          parameters, counts, timings, routelab version and commit
  bad_records.json      unusable records by reason, with file:line examples

Keywords: words joined by AND / OR (any case); AND binds tighter; parentheses group;
adjacent words mean AND, e.g. "flu AND (vaccine OR shot)". Keywords and texts are
cleaned and stemmed alike, so "vaccines" in a text matches the keyword "vaccine".
"""

ADJUST_DESCRIPTION = """\
Replay --objects and --queries (the files of `routelab spatial match`) through PS2Stream's
dispatchers and workers period by period, with the load adjustment of Sect. V: after
every --period tuples each worker's load is the cost model's (Definition 1); when max / min
exceeds --sigma, Phase I splits or merges a hot cell and, if the loads still violate
--sigma, Phase II moves cells from the hottest to the coolest worker, chosen by --selector
(the Minimum Cost Migration problem: DP, GR, SI, RA). Migration moves the queries' state,
so the answer stays every delivered pair. The workers run in this process. Writes to --out:

  matches.<format>      object_id, query_id: every delivered pair (equal to a brute force)
  periods.<format>      per period: first_tuple, tuples, sigma_obs (max / min load) and per
                        worker w load_<w> (cost model), busy_<w> (seconds), msgs_<w>
                        (tuples received); migrated_cells
  migrations.<format>   per migration: period, phase (I-split, I-merge, II), from, to,
                        cells, moved_load, bytes, migration_s, status
  summary.json          parameters, counts (periods, migrations, migrated cells), the
                        first and last period's sigma_obs
  bad_records.json      unusable records by reason, with file:line examples
"""

if TYPE_CHECKING:
    from argparse import Namespace

    import pandas as pd

    from routelab.badrecords import BadRecordReport
    from routelab.spatial.engine import Setup, WorkerRun
    from routelab.spatial.model import Stream


def register(subparsers: argparse._SubParsersAction) -> None:
    from routelab.spatial.engine import PARTITIONERS
    from routelab.spatial.migration import SELECTORS

    verbs = add_system(
        subparsers,
        "spatial",
        help="PS2Stream: match your own objects against STS queries (on Spark), or replay "
        "them with the load adjustment",
        description="PS2Stream (spatio-textual publish/subscribe): partition, dispatch and "
        "match a stream of objects and STS queries (match), or replay it period by period "
        "with Sect. V's load adjustment and migration (adjust).",
    )
    m = verbs.add_parser(
        "match",
        help="match --objects against --queries",
        description=MATCH_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _stream_options(m, PARTITIONERS)
    m.add_argument(
        "--dispatchers", type=int, default=2, help="dispatchers D (default: %(default)s)"
    )
    add_output_options(m)
    add_master_option(m)
    m.set_defaults(func=_match)
    a = verbs.add_parser(
        "adjust",
        help="replay --objects/--queries with PS2Stream's load adjustment (Sect. V)",
        description=ADJUST_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _stream_options(a, PARTITIONERS)
    a.add_argument(
        "--period",
        type=int,
        default=1000,
        help="tuples (objects, query inserts and deletes) per period: the loads are "
        "measured and the trigger checked after each (default: %(default)s)",
    )
    a.add_argument(
        "--sigma",
        type=float,
        default=1.2,
        help="trigger: adjust when max load / min load exceeds it, >= 1 (default: %(default)s)",
    )
    a.add_argument(
        "--selector",
        default="GR",
        metavar="NAME",
        help=f"Phase II's cell selection (default: %(default)s); choices: {SELECTORS.describe()}",
    )
    a.add_argument(
        "--k-hot",
        type=int,
        default=5,
        help="Phase I: the hot worker's most loaded cells examined for a split or merge; 0 "
        "turns Phase I off (default: %(default)s)",
    )
    add_output_options(a)
    a.set_defaults(func=_adjust)


def _stream_options(parser: argparse.ArgumentParser, partitioners: object) -> None:
    """The options ``match`` and ``adjust`` share: the files, the partitioner, the workers,
    the base grid and the seed."""
    parser.add_argument(
        "--objects", required=True, metavar="FILE", help="CSV/Parquet: id,text,lat,lon[,ts]"
    )
    parser.add_argument(
        "--queries",
        required=True,
        metavar="FILE",
        help="CSV/Parquet: id,keywords,min_lat,min_lon,max_lat,max_lon[,insert,delete] "
        "(lat in [-90, 90], lon in [-180, 180]; an empty insert means from the start, an "
        "empty delete never; a time that is not a number is a bad record)",
    )
    add_algorithm_option(parser, partitioners, "hybrid", many=False)
    add_workers_option(parser, 4, many=False, high=64)
    parser.add_argument(
        "--grid", type=int, default=128, help="base grid cells per side (default: %(default)s)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the keyword hashes (which worker a text-partitioned keyword goes to), "
        "of the hypergraph/metric partitioners and of RA's random order (default: "
        "%(default)s)",
    )


def _user_setup(
    args: Namespace, command: str
) -> tuple[Outputs, BadRecordReport, Stream, Setup, object, float]:
    """Options checked, the output directory claimed, the files read (bad records printed),
    the setup prepared (build sample, registering keys) and the partition built: what
    ``match`` and ``adjust`` both start from. Returns (outputs, bad records, stream, setup,
    partition, build seconds)."""
    from routelab.badrecords import BadRecordReport
    from routelab.errors import BadInputError
    from routelab.spatial.engine import build_partition, build_sample, grid_for, prepare
    from routelab.spatial.gridt import MAX_WORKERS
    from routelab.spatial.io import read_user_stream

    (partitioner,) = algorithms(args)
    (n,) = workers(args, high=MAX_WORKERS)
    if getattr(args, "dispatchers", 1) < 1 or args.grid < 2:
        raise BadInputError("--dispatchers must be >= 1 and --grid >= 2")
    out = Outputs(args, command)
    bad = BadRecordReport()
    stream = read_user_stream(Path(args.objects), Path(args.queries), bad)
    if bad.bad:
        print(bad)
    so, sq = build_sample(stream, 0.1, 50_000)
    setup = prepare(stream, grid_for(stream, args.grid), so, sq, seed=args.seed)
    part, build_s = build_partition(setup, partitioner, n)
    return out, bad, stream, setup, part, build_s


def matches_frame(stream: Stream, pairs: object) -> pd.DataFrame:
    """Delivered ``(query, object)`` pairs (stream indexes) as the user's ids:
    ``object_id, query_id``, sorted."""
    import numpy as np
    import pandas as pd

    q_ids, o_ids = stream.info["query_ids"], stream.info["object_ids"]
    arr = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)  # type: ignore[call-overload]
    frame = pd.DataFrame({"object_id": o_ids[arr[:, 1]], "query_id": q_ids[arr[:, 0]]})
    return frame.sort_values(["object_id", "query_id"], ignore_index=True)


def worker_counters(stream: Stream, run: WorkerRun) -> dict[str, object]:
    """One worker's row of ``workers.<format>``: the GI2 work split by tuple kind (the
    replay counts postings inserted, candidates checked and postings purged in one array)."""
    from routelab.spatial.model import DEL, INS, OBJ

    kind = stream.kind[run.tup]
    checks = run.checks
    return {
        "worker": run.worker,
        "tuples": run.tuples,
        "objects": run.objects,
        "candidate_checks": int(checks[kind == OBJ].sum()),
        "postings_inserted": int(checks[kind == INS].sum()),
        "purge_visits": int(checks[kind == DEL].sum()),
        "peak_postings": run.peak_postings,
        "stored_queries": run.stored_queries,
        "busy_s": run.busy_s,
    }


def _match(args: argparse.Namespace) -> int:
    import pandas as pd

    (partitioner,) = algorithms(args)
    out, bad, stream, setup, part, build_s = _user_setup(args, "spatial match")
    n = part.n_workers
    from routelab.spark import get_spark
    from routelab.spatial.dataflow import spark_run

    spark = get_spark(args.master, app_name="routelab-spatial", quiet=True)
    res = spark_run(setup, part, n_dispatchers=args.dispatchers, spark=spark)
    out.table("matches", matches_frame(stream, res.pairs))
    table = pd.DataFrame([worker_counters(stream, w) for w in res.workers])
    out.table("workers", table)
    out.bad_records(bad)
    out.summary(
        {
            "objects": len(stream.objects),
            "queries": len(stream.queries),
            "tuples": len(stream.kind),
            "matches": len(res.pairs),
            "duplicates_removed": res.duplicates,
            "copies": res.info["copies"],
            "discarded_objects": res.info["discarded"],
        },
        {"build_s": build_s},
        partitioner=partitioner,
        ordered_by_time=bool(stream.info["ordered_by_time"]),
    )
    print(
        f"{len(res.pairs):,} matches of {len(stream.objects):,} objects and "
        f"{len(stream.queries):,} queries ({partitioner}, {n} workers, {args.dispatchers} "
        f"dispatchers; busiest worker {table.busy_s.max() * 1e3:.1f} ms) -> {out.dir}"
    )
    return 0


def _adjust(args: argparse.Namespace) -> int:
    """``spatial adjust``: :func:`routelab.spatial.adjustment.replay_adjusted` (Sect. V) on
    the user's files, locally."""
    import time

    import numpy as np

    from routelab.errors import BadInputError
    from routelab.spatial.adjustment import AdjustParams, replay_adjusted
    from routelab.spatial.migration import SELECTORS

    (partitioner,) = algorithms(args)
    try:
        selector = SELECTORS.lookup(args.selector).name
    except (KeyError, ValueError) as exc:
        raise BadInputError(f"--selector: {exc}") from None
    if args.period < 1 or args.sigma < 1 or args.k_hot < 0:
        raise BadInputError("--period must be >= 1, --sigma >= 1 and --k-hot >= 0")
    out, bad, stream, setup, part, build_s = _user_setup(args, "spatial adjust")
    params = AdjustParams(
        period=args.period,
        sigma=args.sigma,
        selector=selector,
        selector_params={"seed": args.seed} if selector == "RA" else {},
        k_hot=args.k_hot,
    )
    t0 = time.perf_counter()
    run = replay_adjusted(setup, part, params, backend="local")
    replay_s = time.perf_counter() - t0
    matches = matches_frame(stream, run.pairs)
    out.table("matches", matches)
    out.table("periods", run.periods)
    out.table("migrations", run.migrations)
    out.bad_records(bad)
    sigma_obs = run.periods["sigma_obs"].to_numpy()
    migrated = int(run.periods["migrated_cells"].sum())
    out.summary(
        {
            "objects": len(stream.objects),
            "queries": len(stream.queries),
            "tuples": len(stream.kind),
            "matches": len(matches),
            "duplicates_removed": run.duplicates,
            "periods": len(run.periods),
            "migrations": len(run.migrations),
            "migrated_cells": migrated,
        },
        {"build_s": build_s, "replay_s": replay_s},
        partitioner=partitioner,
        selector=selector,
        ordered_by_time=bool(stream.info["ordered_by_time"]),
        # max / min load; null where a worker had no load (the ratio is infinite)
        sigma_obs={
            key: float(value) if np.isfinite(value) else None
            for key, value in zip(
                ("first_period", "last_period", "max"),
                (sigma_obs[0], sigma_obs[-1], sigma_obs.max()),
                strict=True,
            )
        },  # fmt: skip  # fmt: skip
    )
    print(
        f"{len(matches):,} matches of {len(stream.objects):,} objects and "
        f"{len(stream.queries):,} queries ({partitioner}, {part.n_workers} workers); "
        f"{len(run.periods)} periods of {args.period:,} tuples, {len(run.migrations)} "
        f"migration(s) moving {migrated} cell(s) ({selector}, sigma {args.sigma}); max/min "
        f"load {sigma_obs[0]:.2f} in the first period, {sigma_obs[-1]:.2f} in the last "
        f"-> {out.dir}"
    )
    return 0
