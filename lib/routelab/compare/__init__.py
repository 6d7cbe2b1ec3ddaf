"""One stream through five routers: the bundled real tweets, one set of interests, S3-TM,
key grouping (PKG, D-C, W-C, FISH), PS2Stream and Fabret side by side (notebook 13 and
``routelab compare run``; beyond the papers).

=================  ======================================================================
``stream.py``      the common stream: words, keys, a place and record attributes per post
``interests.py``   one set of interests as word sets, spatio-textual queries, predicates
``routers.py``     every router at N workers, measured alike (imbalance, replication, ...)
``user.py``        a user's posts and interests for ``routelab compare run``
=================  ======================================================================

Notebook 13's code (its grid, the cost of adapting to the drift, the table, figures,
claims and the worked example) is in ``lab/``.
"""
