"""Notebook ``06_shedding``: Fig. 8 (S3-TM Sects. 5.2, 6.5).

============================ ======================================================================
file                         what it holds
============================ ======================================================================
``experiments.py``           Fig. 8a workloads and shedding curves
``controller_simulation.py`` L(l) and the Fig. 8b buffer simulation
``figures.py``               Figs. 8a/8b, the threshold explorer
``claims.py``                the claims table of notebook 06
============================ ======================================================================
"""
