"""Notebook ``11_ps2stream_partitioning``: PS2Stream's partitioning (Sects. III-IV, VI-B,
VI-C; Figs. 3-4, 6-11).

==================  ======================================================================
file                what it holds
==================  ======================================================================
``experiments.py``  Figs. 6-11 sweeps: throughput (measured, modelled), latency, memory;
                    ``make_setup`` (also used by notebook 12's experiments)
``figures.py``      Figs. 3-4 (kdt-tree map), 6, 7-10 (bars), 11 (workers), the regime map
``claims.py``       claims C1-C12 with their rules and tolerances; Sect. VI-D listed
``cost_clock.py``   Definition 1 against the clock: unit costs fitted per worker, R^2, errors
``text_split.py``   what Algorithm 1's threshold sees: the similarity on a kd probe
``example.py``      the worked example: registering keys and one GI2 cell
==================  ======================================================================
"""
