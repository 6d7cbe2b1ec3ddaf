"""One stream through five routers: the bundled real tweets, one set of interests, S3-TM,
key grouping (PKG, D-C, W-C, FISH), PS2Stream and Fabret side by side (notebook 13).

=================  ======================================================================
``stream.py``      the common stream: words, keys, a place and record attributes per post
``interests.py``   one set of interests as word sets, spatio-textual queries, predicates
``example.py``     the worked example: one post and three interests in every form
``routers.py``     every router at N workers, measured alike (imbalance, replication, ...)
``drift.py``       the cost of adapting: configurations learned once vs window by window
``experiments.py`` notebook 13's grid as Spark sweep tasks
``figures.py``     notebook 13's table and figures
``claims.py``      notebook 13's cross-system claims
``user.py``        a user's posts and interests for ``routelab compare run``
=================  ======================================================================
"""
