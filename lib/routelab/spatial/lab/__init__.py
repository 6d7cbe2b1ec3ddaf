"""Notebooks 11 (PS2Stream partitioning) and 12 (local load adjustment): data,
experiments, figures and claims, one sub-package per notebook; what both share stays at
this level (``tests/test_layout.py`` checks it).

==================  ======================================================================
package / file      what it holds
==================  ======================================================================
``workload.py``     both notebooks: semi-synthetic TWEETS-US'/UK', queries Q1/Q2/Q3, the
                    Helsinki POI demo
``regime.py``       both notebooks: the regime measured (fixed-cost share, busy time, seeds)
                    and the platform's cost per message: throughput(c), the verdict map,
                    flip points
``bench.py``        ``routelab bench spatial``: GI2 and gridt rates vs a shapely STRtree matcher
``partitioning/``   ``11_ps2stream_partitioning``: Figs. 3-4, 6-11, claims C1-C12
                    (experiments, figures, claims, cost_clock, text_split, example)
``adjustment/``     ``12_ps2stream_adjustment``: Figs. 12-16, claims C13-C20 (experiments,
                    figures, claims)
==================  ======================================================================
"""
