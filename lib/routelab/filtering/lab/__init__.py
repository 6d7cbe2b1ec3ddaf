"""Notebooks 09 (``09_fabret_matching``) and 10 (``10_fabret_adaptivity``): the code behind
their sections.

========================  ================================================================
``experiments.py``        Spark sweep tasks: Fig. 3(a, c, d) scalability on W0, Fig. 3(b)
                          operators (W1op, W2op), the Sect. 6.2.2 sweeps, real flights
                          beside W0; the worked example
``figures.py``            Fig. 3(a-d), the 6.2.2 sweeps, the checks-per-event explorer
``claims.py``             notebook 09's claims table (C1-C13, C16-C17), declared tolerances
``adaptivity.py``         notebook 10: Fig. 4's saturation runs and the churn-rate sweep as
                          Spark tasks, routing on W0 and flights, the maintenance example
``adaptivity_figures.py`` Fig. 4(a, b), churn rate, real data, routing, the timeline replay
``adaptivity_claims.py``  notebook 10's claims table (C14, C15, churn, real ordering, routing)
``bench.py``              ``routelab bench filtering``: kernel times at 1M and 6M, build, RSS
``routing.py``            beyond the paper: broadcast vs access-predicate routing of events
                          to Spark matcher partitions (messages/event, imbalance, throughput)
========================  ================================================================
"""
