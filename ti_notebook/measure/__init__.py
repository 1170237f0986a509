"""Measuring kernels honestly: one timing protocol, this machine's ceilings, rooflines.

Everything ti_notebook shows about speed (the tuner, ``%%kernel --profile``, the
tutorials, ``benchmarks/``) is measured the same way (:mod:`.protocol`) and summarised
the same way (:mod:`.stats`): warm-up calls excluded and shown apart as the first call,
settings measured interleaved round by round, the median with the interquartile range,
outliers marked, the number of samples stated. Reached through ``ti.profiler``.
"""
