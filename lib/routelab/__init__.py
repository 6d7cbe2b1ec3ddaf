"""routelab: a research workbench for routing data streams to parallel workers.

Re-implements S3-TM (streaming short-text matching), Partial Key Grouping, FISH,
PS2Stream and Fabret et al.'s filtering algorithms, runs their experiments on
Apache Spark through PySpark, and regenerates every figure headlessly with papermill.
"""

__version__ = "0.1.0"
