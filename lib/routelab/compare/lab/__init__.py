"""Notebook 13 (five routers on one stream): experiments, figures, claims, worked example.

=================  ======================================================================
``drift.py``       the cost of adapting: configurations learned once vs window by window
``experiments.py`` notebook 13's grid as Spark sweep tasks
``figures.py``     notebook 13's table and figures
``claims.py``      notebook 13's cross-system claims
``example.py``     the worked example: one post and three interests in every form
=================  ======================================================================
"""
