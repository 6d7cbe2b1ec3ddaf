"""Notebook 09 (``09_fabret_matching``): the code behind its sections.

==================  ======================================================================
``experiments.py``  Spark sweep tasks: Fig. 3(a, c, d) scalability on W0, Fig. 3(b)
                    operators (W1op, W2op), the Sect. 6.2.2 sweeps; the worked example
``figures.py``      Fig. 3(a-d), the 6.2.2 sweeps, the checks-per-event explorer
``claims.py``       the claims table (C1-C13, C16-C17) with declared tolerances
``bench.py``        ``routelab bench filtering``: kernel times at 1M and 6M, build, RSS
``routing.py``      beyond the paper: broadcast vs access-predicate routing of events to
                    Spark matcher partitions (messages/event, imbalance, throughput)
==================  ======================================================================
"""
