"""The code of notebooks 07_pkg and 08_fish: key streams, sweeps, figures, claims.

Nothing here is an algorithm of the papers (those are in :mod:`routelab.grouping`); change
these files to change an experiment without touching a grouping scheme.

================ ==================================================================================
notebook         files
================ ==================================================================================
both             ``streams.py`` (named real and synthetic key streams), ``tasks.py`` (the Spark
                 sweep task: one grid point of the simulator -> rows), ``bench.py``
                 (``routelab bench grouping``)
``07_pkg``       ``pkg/`` (Table II, Figs. 2-5, used bins: cases, grids, reductions, throughput,
                 used_bins, example),
                 ``pkg_figures.py``, ``pkg_claims.py``
``08_fish``      ``fish_experiments.py`` (Figs. 9-19: grid points, one sweep task, the parameter
                 study), ``fish_figures.py``, ``fish_claims.py``
================ ==================================================================================
"""
