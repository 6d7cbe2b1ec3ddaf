"""The corpus side of S3-TM and of notebooks 01_corpus and 02_subscriptions (S3-TM Sects. 2.1, 6.1).

============================ ======================================================================
file                         what it holds
============================ ======================================================================
``text.py``                  cleaning, stop words (``data/stopwords_en.txt``), stemming of short
                             texts (Sect. 2.1 "Receiver", Sect. 6.1)
``preprocess.py``            posts -> word sets on Spark, with a report of what was dropped and why
``corpora.py``               the bundled real tweets as word sets, preprocessed once and cached
``stats.py``                 Table 1 and Fig. 4's data (word frequencies, Zipf fit) on Spark
``subscriptions.py``         tweet-based and topic-based (LDA) subscriptions (Sect. 6.1)
``lab/``                     notebooks 01-02: figures, subscription statistics, the paper's
                             values, claims, the preprocessing benchmark
============================ ======================================================================
"""
