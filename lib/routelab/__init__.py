"""routelab: a research workbench for routing data streams to parallel workers.

Re-implements S3-TM (streaming short-text matching), Partial Key Grouping, FISH,
PS2Stream and Fabret et al.'s filtering algorithms, runs their experiments on
Apache Spark through PySpark, and regenerates every figure headlessly with papermill.

The tree (``lib/routelab/README.md`` draws it with every file):

- a package per paper holds that paper's algorithms only, files named after what they
  hold, docstrings citing sections: ``s3tm`` (S3-TM), ``grouping`` (PKG and FISH),
  ``filtering`` (Fabret et al.), ``spatial`` (PS2Stream);
- its ``lab`` subpackage holds the notebooks' code for that paper: workloads, experiment
  runners, figures, claims, benchmarks;
- ``corpus`` holds text cleaning, Spark preprocessing, corpus statistics and subscriptions
  (the corpus side of S3-TM, notebooks 01-02); ``datasets`` the real and synthetic data;
  ``commands`` the subcommands of the ``routelab`` CLI;
- the workbench modules at this level serve every paper:

  ====================== ==================================================================
  ``spark.py``           the one Spark session factory (:func:`routelab.spark.get_spark`)
  ``sweep.py``           parameter grids as Spark tasks, with a progress bar
  ``runs.py``            the papermill runner behind ``routelab figures``
  ``profiles.py``        what ``smoke``, ``default`` and ``paper`` mean for each notebook
  ``report.py``          a notebook's figures, headline numbers and claims -> results.json
  ``claims.py``          the verdict vocabulary and the declared-tolerance rules of claims
  ``dashboard.py``       ``figures/index.html`` and ``routelab claims``: every notebook's claims
  ``jupyter_kernel.py``  the ``routelab`` Jupyter kernelspec; IPC kernels for papermill
  ``methods.py``         one registry shape for every system's methods (:class:`MethodRegistry`)
  ``protocols.py``       what each kind of method's kernels share (``typing.Protocol`` s)
  ``checks.py``          argument checks shared by every module (one ValueError each)
  ``palette.py``         one colour per method across every notebook
  ``progress.py``        progress bars (none inside batch notebook runs)
  ``conf/``              the driver's log4j2 configuration (quiet Spark start-up); the
                         verdicts flipped readings decide (``reading_verdicts.json``)
  ``plots.py``           figure style; saving as HTML, PNG, SVG with a provenance footer
  ``paths.py``           where routelab reads and writes
  ``hashing.py``         seeded stable hashes (never Python's ``hash()``)
  ``timing.py``          the clock of timed regions (CPU time) and one timed region at a time
  ``readings.py``        readings of READINGS.md flipped for a run; the verdicts they decide
  ``reading_screen.py``  which readings decide which rows: a screen bisected to the readings
  ``uniques.py``         sorted distinct values of an integer array by one sort
  ``errors.py``          errors reported to users as one clear message
  ``badrecords.py``      bad input records counted by reason, with file:line examples
  ``benchmarks.py``      the registry behind ``make bench`` / ``routelab bench``
  ``benchcompare.py``    ``routelab bench compare``: the benchmarks on an earlier commit,
                         interleaved with the work tree's; ``papermill_runs/bench`` history
  ``cli.py``             the ``routelab`` command line (subcommands in ``commands/``)
  ====================== ==================================================================
"""

__version__ = "0.1.0"
