"""The code of the S3-TM notebooks 03-06: workloads, experiment runners, figures, claims.

Nothing here is an algorithm of the paper (those are in :mod:`routelab.s3tm`); change these
files to change an experiment without touching the algorithm. One sub-package per notebook;
a notebook's package imports :mod:`~routelab.s3tm.lab.shared` and never another notebook's
package (``tests/test_layout.py`` checks it).

====================== ============================================================================
package / file         what it holds
====================== ============================================================================
``shared.py``          what notebooks 03-06 share: folds, subscriptions, the broadcast handle
                       ``SharedData``, relative throughput and fold summaries, the Fig. 7 grid
                       (``ScalingData``, ``run_scaling``, the Fig. 3 lookup curve)
``routing/``           ``03_routing``: Figs. 5, 6, 9 (workloads, experiments, summary, fig5,
                       load, figures, claims, word_network, bench)
``matching/``          ``04_matching``: Figs. 3, 7a-h (scaling, figures, claims, example, bench)
``drift/``             ``05_drift``: Fig. 7i-l (experiments, figures, claims, example)
``shedding/``          ``06_shedding``: Fig. 8 (experiments, controller_simulation, figures,
                       claims)
====================== ============================================================================
"""
