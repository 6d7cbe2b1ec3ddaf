"""``routelab spatial match``: a user's own spatio-textual stream through PS2Stream on Spark."""

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

if TYPE_CHECKING:
    from routelab.spatial.engine import WorkerRun
    from routelab.spatial.model import Stream


def register(subparsers: argparse._SubParsersAction) -> None:
    from routelab.spatial.engine import PARTITIONERS

    verbs = add_system(
        subparsers,
        "spatial",
        help="PS2Stream: match your own objects against STS queries on Spark",
        description="PS2Stream (spatio-textual publish/subscribe): partition, dispatch and "
        "match a stream of objects and STS queries.",
    )
    m = verbs.add_parser(
        "match",
        help="match --objects against --queries",
        description=MATCH_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    m.add_argument(
        "--objects", required=True, metavar="FILE", help="CSV/Parquet: id,text,lat,lon[,ts]"
    )
    m.add_argument(
        "--queries",
        required=True,
        metavar="FILE",
        help="CSV/Parquet: id,keywords,min_lat,min_lon,max_lat,max_lon[,insert,delete]",
    )
    add_algorithm_option(m, PARTITIONERS, "hybrid", many=False)
    add_workers_option(m, 4, many=False, high=64)
    m.add_argument(
        "--dispatchers", type=int, default=2, help="dispatchers D (default: %(default)s)"
    )
    m.add_argument(
        "--grid", type=int, default=128, help="base grid cells per side (default: %(default)s)"
    )
    m.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the keyword hashes (which worker a text-partitioned keyword goes to) "
        "and of the hypergraph/metric partitioners (default: %(default)s)",
    )
    add_output_options(m)
    add_master_option(m)
    m.set_defaults(func=_match)


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
    import numpy as np
    import pandas as pd

    from routelab.badrecords import BadRecordReport
    from routelab.errors import BadInputError
    from routelab.spatial.engine import build_partition, build_sample, grid_for, prepare
    from routelab.spatial.gridt import MAX_WORKERS
    from routelab.spatial.io import read_user_stream

    (partitioner,) = algorithms(args)
    (n,) = workers(args, high=MAX_WORKERS)
    if args.dispatchers < 1 or args.grid < 2:
        raise BadInputError("--dispatchers must be >= 1 and --grid >= 2")
    out = Outputs(args, "spatial match")
    bad = BadRecordReport()
    stream = read_user_stream(Path(args.objects), Path(args.queries), bad)
    if bad.bad:
        print(bad)
    so, sq = build_sample(stream, 0.1, 50_000)
    setup = prepare(stream, grid_for(stream, args.grid), so, sq, seed=args.seed)
    part, build_s = build_partition(setup, partitioner, n)
    from routelab.spark import get_spark
    from routelab.spatial.dataflow import spark_run

    spark = get_spark(args.master, app_name="routelab-spatial", quiet=True)
    res = spark_run(setup, part, n_dispatchers=args.dispatchers, spark=spark)
    q_ids, o_ids = stream.info["query_ids"], stream.info["object_ids"]
    pairs = np.array(sorted(res.pairs), dtype=np.int64).reshape(-1, 2)
    matches = pd.DataFrame({"object_id": o_ids[pairs[:, 1]], "query_id": q_ids[pairs[:, 0]]})
    out.table("matches", matches.sort_values(["object_id", "query_id"], ignore_index=True))
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
