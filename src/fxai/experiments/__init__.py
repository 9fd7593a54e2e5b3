"""The experiments' library, one module per part of the workflow: each holds the part's
choice of instances, its per-instance driver and the summary of its run records into the
tables' rows. The commands (:mod:`fxai.commands`) parse, load, loop and write; benchmarks
and tests import these modules, never a command."""
