"""Notebook 11 (PS2Stream partitioning): data, experiments, figures and claims.

==================  ======================================================================
``workload.py``     semi-synthetic TWEETS-US'/UK', queries Q1/Q2/Q3, the Helsinki POI demo
==================  ======================================================================
"""
