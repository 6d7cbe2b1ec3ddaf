"""PS2Stream (Chen, Cong, Zhang, Fu, Chen, "Distributed Publish/Subscribe Query Processing on
the Spatio-Textual Data Stream", ICDE 2017): routing a stream of spatio-textual objects and
STS query updates to workers.

Files and the paper's sections:

=================  ========================================================================
``model.py``       objects, STS queries (AND/OR expressions in DNF), registering keys,
                   the stream of OBJ/INS/DEL tuples (Sect. III-A, IV-C)
``grid.py``        the base grid all indexes share; query squares in km (Sects. IV-C/D)
``oracle.py``      brute-force matching over the stream (the tests' reference)
``cost.py``        Definitions 1 and 3 on a build sample: ``SampleStats.load`` (unit_load)
                   with the three readings of the match count; unit-cost calibration
``kdt.py``         the kdt-tree (Fig. 3): space / text / leaf nodes, a partition's output
``baselines.py``   the six baselines of Sect. VI-B: grid, kd-tree, R-tree (STR);
                   frequency, hypergraph (Mt-KaHyPar), metric (S3-TM's SALB)
``hybrid.py``      hybrid partitioning: Algorithm 1, ComputeNumberPartitions,
                   PartitionNode, MergeNodesIntoPartitions (Sect. IV-B)
``gridt.py``       the dispatchers' gridt index and routing (Sect. IV-C, Fig. 4)
``int_table.py``   the dispatchers' H_q table (int64 -> int64, open addressing, numba)
``gi2.py``         the workers' GI2 index: insert, lazy delete, match (Sect. IV-D); the
                   postings of given cells (extract, drop) for migration
``migration.py``   the Minimum Cost Migration problem: DP, GR, SI, RA (Sects. V-A, VI-D)
``adjustment.py``  load adjustment in a period-by-period replay with real migration of
                   the queries' state: trigger, Phase I, Phase II (Sect. V)
``phase_one.py``   Phase I of the local adjustment: text split or merge of a hot cell
``global_adjust.py`` global adjustment: re-partition on a recent sample, two strategies
                   until the old queries drain (Sect. V-B)
``adjust_workers.py`` the workers of an adjusted replay: what the adjustment needs of them,
                   and the workers in this process
``engine.py``      the partitioner registry ``PARTITIONERS``; the build sample; partition ->
                   dispatch -> worker replay -> merger on one machine (Fig. 1)
``dataflow.py``    the same run with dispatchers and workers as Spark tasks; the adjusted
                   replay's workers as Spark tasks, postings checkpointed between periods
``workload.py``    the workload's shape: objects : updates, query lifetimes (Sect. VI-A)
``places.py``      where the tweets are: a country's gazetteer places, posts placed by
                   their accounts, the country's box cut into regions (Sect. VI-A)
``io.py``          a user's objects/queries files -> a stream (``routelab spatial match``)
=================  ========================================================================

The notebook's code (semi-synthetic tweets, Q1/Q2/Q3, experiments, figures, claims of
notebooks 11 and 12) is in ``lab/``.
"""

from routelab.spatial.engine import PARTITIONERS, build_partition, prepare, run_pipeline
from routelab.spatial.model import parse_expression
from routelab.spatial.oracle import oracle_pairs

__all__ = [
    "PARTITIONERS",
    "build_partition",
    "oracle_pairs",
    "parse_expression",
    "prepare",
    "run_pipeline",
]
