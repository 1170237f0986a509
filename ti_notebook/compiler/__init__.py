"""The compiler: a kernel's source and arguments in, loaded machine code out.

``driver.py`` runs trace → passes → backend for a :class:`~.request.CompileRequest`
(the offline cache, ``ti_notebook/cache/``, puts itself around it and is never
imported from here); ``backends/`` holds one backend per target with its
capabilities; ``report.py`` and ``stages.py`` are what a compiled kernel shows. It
imports the frontend, the passes, codegen and the runtime, never the session's
configuration object: the language layer (``lang/``) builds the requests.

This file imports nothing, so importing one module of the package does not import the
rest.
"""
