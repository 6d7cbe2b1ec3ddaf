"""Notebook ``12_ps2stream_adjustment``: PS2Stream's local load adjustment (Sects. V-A,
VI-D; Figs. 12-16).

==================  ======================================================================
file                what it holds
==================  ======================================================================
``experiments.py``  adjusted replays per selector (Figs. 12-16) as Spark sweep tasks
``figures.py``      Figs. 12, 13-15, 16, the worked example's table, the period stepper
``claims.py``       notebook 12's claims (C13-C20 of Sect. VI-D) with their rules
==================  ======================================================================
"""
