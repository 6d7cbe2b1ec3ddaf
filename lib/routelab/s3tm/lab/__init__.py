"""The code of the S3-TM notebooks 03-06: workloads, experiment runners, figures, claims.

Nothing here is an algorithm of the paper (those are in :mod:`routelab.s3tm`); change these
files to change an experiment without touching the algorithm.

====================== ============================================================================
notebook               files
====================== ============================================================================
``03_routing``         ``workloads.py`` (posts, folds, subscriptions), ``routing_experiments.py``
                       (10-fold CV sweep, learning curve, learning time, skew ablation on Spark),
                       ``routing_summary.py`` (relative throughput, geometric means),
                       ``routing_fig5.py`` (Fig. 5 on the union and per source),
                       ``routing_load.py`` (Fig. 5 under Fig. 7's trie-lookup load),
                       ``routing_figures.py`` (Figs. 5, 6, 9), ``routing_claims.py``,
                       ``word_network.py`` (the top words' co-occurrence network, by matcher),
                       ``bench_salb.py`` (``routelab bench salb``)
``04_matching``        ``subscription_scaling.py`` (Fig. 3 lookup curve, Fig. 7a-h sweep,
                       LASP vs random anycast), ``matching_figures.py``, ``matching_claims.py``,
                       ``matching_example.py`` (the worked example: a small trie and its
                       lookups), ``bench_matching.py`` (``routelab bench matching``)
``05_drift``           ``drift_experiments.py`` (windows, per-window topics, the week-0 mapping,
                       trend tests), ``drift_figures.py`` (Fig. 7i-l), ``drift_claims.py``,
                       ``drift_example.py`` (the worked example: top words entering and
                       leaving the top-k per window)
``06_shedding``        ``shedding_experiments.py`` (Fig. 8a workloads and curves),
                       ``controller_simulation.py`` (L(l) and the Fig. 8b buffer simulation),
                       ``shedding_figures.py`` (Figs. 8a/8b, threshold explorer),
                       ``shedding_claims.py``
====================== ============================================================================
"""
