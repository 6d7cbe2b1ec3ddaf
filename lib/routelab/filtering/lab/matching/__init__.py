"""Notebook ``09_fabret_matching``: Fig. 3(a-d) and the Sect. 6.2.2 sweeps (Fabret et al.
Sects. 6.1-6.2).

==================  ======================================================================
file                what it holds
==================  ======================================================================
``experiments.py``  Spark sweep tasks: Fig. 3(a, c, d) scalability on W0, Fig. 3(b)
                    operators (W1op, W2op), the Sect. 6.2.2 sweeps, real flights beside
                    W0 (also run by notebook 10); the worked example
``figures.py``      Fig. 3(a-d), the 6.2.2 sweeps, the checks-per-event explorer
``claims.py``       notebook 09's claims table (C1-C13, C16-C17), declared tolerances
==================  ======================================================================
"""
