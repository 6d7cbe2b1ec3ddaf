"""Notebook ``08_fish``: FISH's experiments (FISH Sect. 6, Figs. 5, 9-19).

================== ================================================================================
file               what it holds
================== ================================================================================
``experiments.py`` grid points, one sweep task, derived ratios, the parameter choice of RQ2 and
                   the paper's numbers
``figures.py``     Fig. 5 (overview), Figs. 9-19, the per-worker load explorer
``claims.py``      the claims table of notebook 08 (overall, ablation, study, deployment)
================== ================================================================================
"""
