"""The experiments' library, one module per part of the workflow: each holds the part's
choice of instances, its per-instance driver (all on :func:`fxai.experiments.driver.drive`:
prime, time, explain, check) and the reading and summary of its run records into the
tables' rows; :mod:`~fxai.experiments.claims` checks the papers' claims on every part's
records. The commands (:mod:`fxai.commands`) parse, load, loop and write; benchmarks and
tests import these modules, never a command."""
