"""Notebook ``04_matching``: Figs. 3 and 7a-h (S3-TM Sects. 4, 6.3).

================ ==================================================================================
file             what it holds
================ ==================================================================================
``scaling.py``   the subscription streams of Fig. 7 (tweet-based, synthetic beyond the corpus,
                 topic-based), LASP vs random anycast, readings of the results (the grid itself
                 is :mod:`routelab.s3tm.lab.shared`)
``figures.py``   Figs. 3, 7a-h, the dataflow and streaming figures, the loads explorer
``claims.py``    the claims table of notebook 04
``example.py``   the worked example: a small trie and its lookups
``bench.py``     ``routelab bench matching``
================ ==================================================================================
"""
