"""``routelab spatial match``: a user's own spatio-textual stream through PS2Stream on Spark."""

from __future__ import annotations

import argparse
from pathlib import Path

from routelab.commands import add_master_option, check_output_dir


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "spatial",
        help="PS2Stream: match your own objects against STS queries on Spark",
        description="Route a stream of spatio-textual objects and STS queries through "
        "PS2Stream's dispatchers (gridt) and workers (GI2) as Spark tasks and write the "
        "delivered (query_id, object_id) pairs, per-worker load and a bad-record report.",
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    m = sub.add_parser("match", help="match --objects against --queries")
    m.add_argument(
        "--objects", required=True, metavar="FILE", help="CSV/Parquet: id,text,lat,lon[,ts]"
    )
    m.add_argument(
        "--queries",
        required=True,
        metavar="FILE",
        help="CSV/Parquet: id,keywords,min_lat,min_lon,max_lat,max_lon[,insert,delete]",
    )
    m.add_argument(
        "--partitioner",
        default="hybrid",
        help="grid, kd-tree, r-tree, frequency, hypergraph, metric or hybrid (default: %(default)s)",
    )
    m.add_argument("--workers", type=int, default=4, help="workers N (default: %(default)s)")
    m.add_argument(
        "--dispatchers", type=int, default=2, help="dispatchers D (default: %(default)s)"
    )
    m.add_argument(
        "--grid", type=int, default=128, help="base grid cells per side (default: %(default)s)"
    )
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--out", required=True, metavar="DIR")
    m.add_argument("--overwrite", action="store_true", help="replace an existing output directory")
    add_master_option(m)
    m.set_defaults(func=_match)


def _match(args: argparse.Namespace) -> int:
    import json

    import numpy as np
    import pandas as pd

    from routelab.badrecords import BadRecordReport
    from routelab.errors import BadInputError
    from routelab.spatial.engine import PARTITIONERS, build_partition, prepare
    from routelab.spatial.gridt import MAX_WORKERS
    from routelab.spatial.lab.files import read_user_stream
    from routelab.spatial.lab.workload import build_sample, grid_for

    if args.partitioner not in PARTITIONERS:
        raise BadInputError(
            f"unknown partitioner {args.partitioner!r}; use {', '.join(PARTITIONERS)}"
        )
    if not 1 <= args.workers <= MAX_WORKERS:
        raise BadInputError(f"--workers must be 1..{MAX_WORKERS}")
    if args.dispatchers < 1 or args.grid < 2:
        raise BadInputError("--dispatchers must be >= 1 and --grid >= 2")
    check_output_dir(args.out, args.overwrite)
    bad = BadRecordReport()
    stream = read_user_stream(Path(args.objects), Path(args.queries), bad)
    if bad.bad:
        print(bad)
    so, sq = build_sample(stream, 0.1, 50_000)
    setup = prepare(stream, grid_for(stream, args.grid), so, sq, seed=args.seed)
    part, build_s = build_partition(setup, args.partitioner, args.workers)
    from routelab.spark import get_spark
    from routelab.spatial.replay import spark_run

    spark = get_spark(args.master, app_name="routelab-spatial", quiet=True)
    res = spark_run(setup, part, n_dispatchers=args.dispatchers, spark=spark)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    q_ids, o_ids = stream.info["query_ids"], stream.info["object_ids"]
    pairs = np.array(sorted(res.pairs), dtype=np.int64).reshape(-1, 2)
    pd.DataFrame({"query_id": q_ids[pairs[:, 0]], "object_id": o_ids[pairs[:, 1]]}).to_csv(
        out / "pairs.csv", index=False
    )
    workers = pd.DataFrame(
        [
            {
                "worker": w.worker,
                "tuples": w.tuples,
                "objects": w.objects,
                "busy_s": w.busy_s,
                "candidate_checks": int(w.checks.sum()),
                "peak_postings": w.peak_postings,
                "stored_queries": w.stored_queries,
            }
            for w in res.workers
        ]
    )
    workers.to_csv(out / "workers.csv", index=False)
    (out / "bad_records.json").write_text(json.dumps(bad.to_dict(), indent=2) + "\n")
    summary = {
        "partitioner": args.partitioner,
        "workers": args.workers,
        "dispatchers": args.dispatchers,
        "objects": len(stream.objects),
        "queries": len(stream.queries),
        "tuples": len(stream.kind),
        "pairs": len(res.pairs),
        "duplicates_removed": res.duplicates,
        "copies": res.info["copies"],
        "discarded_objects": res.info["discarded"],
        "build_s": build_s,
        "ordered_by_time": bool(stream.info["ordered_by_time"]),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(
        f"{len(res.pairs):,} pairs of {len(stream.objects):,} objects and {len(stream.queries):,} "
        f"queries ({args.partitioner}, {args.workers} workers, {args.dispatchers} dispatchers; "
        f"busiest worker {workers.busy_s.max() * 1e3:.1f} ms) -> {out}"
    )
    return 0
