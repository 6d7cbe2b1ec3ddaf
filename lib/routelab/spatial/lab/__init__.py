"""Notebooks 11 (PS2Stream partitioning) and 12 (local load adjustment): data,
experiments, figures and claims.

==================  ======================================================================
``workload.py``     semi-synthetic TWEETS-US'/UK', queries Q1/Q2/Q3, the Helsinki POI demo
``example.py``      the worked example: registering keys and one GI2 cell
``experiments.py``  Figs. 6-11 sweeps: throughput (measured, modelled), latency, memory
``figures.py``      Figs. 3-4 (kdt-tree map), 6, 7-10 (bars), 11 (workers)
``claims.py``       claims C1-C12 with their rules and tolerances; Sect. VI-D listed
``cost_clock.py``   Definition 1 against the clock: unit costs fitted per worker, R^2, errors
``regime.py``       the regime measured (fixed-cost share, busy time, seeds) and the platform's
                    cost per message: throughput(c), the verdict map, flip points
``text_split.py``   what Algorithm 1's threshold sees: the similarity on a kd probe
``bench.py``        ``routelab bench spatial``: GI2 and gridt rates vs a shapely STRtree matcher
``adjust_experiments.py`` notebook 12: adjusted replays per selector (Figs. 12-16) as tasks
``adjust_figures.py`` Figs. 12, 13-15, 16, the worked example's table, the period stepper
``adjust_claims.py`` notebook 12's claims (C13-C20 of Sect. VI-D) with their rules
==================  ======================================================================
"""
