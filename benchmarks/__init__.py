"""Engram's benchmarks: retrieval quality on LoCoMo and speed/footprint at scale.

Not part of the installed package: run them from a source checkout with
``python -m benchmarks.locomo`` / ``python -m benchmarks.scale``, or ``engram bench …``
(the CLI finds this folder next to the ``engram`` package). Each run rewrites its
section of ``benchmarks/RESULTS.md`` with the date, the machine and the exact command.
"""
