"""Notebook ``10_fabret_adaptivity``: Fig. 4 (Fabret et al. Sect. 6.2.3), churn, real
data and routing.

==================  ======================================================================
file                what it holds
==================  ======================================================================
``experiments.py``  Fig. 4's saturation runs and the churn-rate sweep as Spark tasks,
                    routing on W0 and flights, the maintenance example
``figures.py``      Fig. 4(a, b), churn rate, real data, routing, the timeline replay
``claims.py``       notebook 10's claims table (C14, C15, churn, real ordering, routing)
``routing.py``      beyond the paper: broadcast vs access-predicate routing of events
                    to Spark matcher partitions (messages/event, imbalance, throughput)
==================  ======================================================================
"""
