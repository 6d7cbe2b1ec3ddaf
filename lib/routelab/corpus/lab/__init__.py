"""The code of notebooks 01_corpus and 02_subscriptions (the corpus side of S3-TM): figures,
claims, the paper's printed numbers and the preprocessing benchmark. The algorithms they
run (cleaning, preprocessing, Table 1 and the Zipf fit, subscriptions) are in
:mod:`routelab.corpus`, which never imports this package.

============================ ======================================================================
file                         what it holds
============================ ======================================================================
``figures.py``               Fig. 4 (word frequency vs rank, its Zipf fit, the fit as a table)
``subscription_stats.py``    subscription lengths, word popularity, match rates and their figures;
                             the topic tables and explorer (Sect. 6.1, notebook 02)
``paper_values.py``          numbers printed in the paper (Table 1), for side-by-side tables
``claims.py``                the claims tables of notebooks 01 and 02
``bench.py``                 ``routelab bench preprocess``: Spark preprocessing throughput
============================ ======================================================================
"""
