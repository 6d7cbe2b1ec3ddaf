"""Notebook ``05_drift``: Fig. 7i-l (S3-TM Sect. 6.4).

================== ================================================================================
file               what it holds
================== ================================================================================
``experiments.py`` windows, per-window topics, the week-0 mapping, trend tests
``figures.py``     Fig. 7i-l, the gain over hash, the trend summary
``claims.py``      the claims table of notebook 05
``example.py``     the worked example: top words entering and leaving the top-k per window
================== ================================================================================
"""
