"""Notebooks 09 (``09_fabret_matching``) and 10 (``10_fabret_adaptivity``): the code behind
their sections, one sub-package per notebook (``tests/test_layout.py`` checks it).

==================  ======================================================================
package / file      what it holds
==================  ======================================================================
``matching/``       ``09_fabret_matching``: Fig. 3(a-d), the Sect. 6.2.2 sweeps, claims
                    (experiments, figures, claims); notebook 10 also runs its
                    ``experiments.run_points`` and ``real_points``
``adaptivity/``     ``10_fabret_adaptivity``: Fig. 4, churn, real data, routing
                    (experiments, figures, claims, routing)
``bench.py``        ``routelab bench filtering``: kernel times at 1M and 6M, build, RSS
==================  ======================================================================
"""
