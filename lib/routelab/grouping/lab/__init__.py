"""The code of notebooks 07_pkg and 08_fish: key streams, sweeps, figures, claims.

Nothing here is an algorithm of the papers (those are in :mod:`routelab.grouping`); change
these files to change an experiment without touching a grouping scheme. One sub-package per
notebook; what both notebooks share stays at this level (``tests/test_layout.py`` checks it).

================ ==================================================================================
package / file   what it holds
================ ==================================================================================
``streams.py``   both notebooks: the named real and synthetic key streams
``tasks.py``     both notebooks: the Spark sweep task (one grid point of the simulator -> rows)
``bench.py``     ``routelab bench grouping``
``pkg/``         ``07_pkg``: Table II, Figs. 2-5, used bins (cases, grids, reductions, throughput,
                 used_bins, example, figures, claims)
``fish/``        ``08_fish``: Figs. 9-19 (experiments: grid points, one sweep task, the parameter
                 study; figures, claims)
================ ==================================================================================
"""
