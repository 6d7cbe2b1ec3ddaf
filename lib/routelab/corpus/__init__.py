"""The corpus side of S3-TM and of notebooks 01_corpus and 02_subscriptions (S3-TM Sects. 2.1, 6.1).

============================ ======================================================================
file                         what it holds
============================ ======================================================================
``text.py``                  cleaning, stop words (``data/stopwords_en.txt``), stemming of short
                             texts (Sect. 2.1 "Receiver", Sect. 6.1)
``preprocess.py``            posts -> word sets on Spark, with a report of what was dropped and why
``corpora.py``               the bundled real tweets as word sets, preprocessed once and cached
``stats.py``                 Table 1 and Fig. 4 (word frequencies, Zipf fit) on Spark
``subscriptions.py``         tweet-based and topic-based (LDA) subscriptions (Sect. 6.1)
``subscription_stats.py``    subscription lengths, word popularity, match rates (Sect. 6.1)
``paper_values.py``          numbers printed in the paper (Table 1), for side-by-side tables
``claims.py``                the claims tables of notebooks 01 and 02
============================ ======================================================================
"""
