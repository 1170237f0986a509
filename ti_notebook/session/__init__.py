"""What turns a call into a launch: kernels, their specialisation, the configuration.

``kernel.py`` holds ``@ti.kernel`` (call, specialise, compile), ``config.py`` and
``lifecycle.py`` what ``ti.init``/``ti.reset`` set (the backend included), and the
modules beside them the template keys, parameters, the fast call path, graphs, autodiff
kernels and the Tape, the offline cache's switches, and the fields' compiled loops. The
session reads the user's objects (``lang/``) and drives the compiler.
"""
