"""Notebook ``03_routing``: Figs. 5, 6 and 9 (S3-TM Sects. 5.1, 6.1, 6.2, 6.6).

================== ================================================================================
file               what it holds
================== ================================================================================
``workloads.py``   posts, ``CVData`` / ``CurveData`` datasets (real, per source, synthetic)
``experiments.py`` 10-fold CV sweep, learning curve, learning time, skew ablation on Spark; the
                   worked example
``summary.py``     relative throughput keys, geometric means across datasets, Fig. 5 summaries
``fig5.py``        Fig. 5 on the union and per source
``load.py``        Fig. 5 under Fig. 7's trie-lookup load
``figures.py``     Figs. 5, 6, 9 and the skew ablation
``claims.py``      the claims table of notebook 03
``word_network.py`` the top words' co-occurrence network, by matcher
``bench.py``       ``routelab bench salb``
================== ================================================================================
"""
