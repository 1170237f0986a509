"""The compiler: a kernel's source and arguments in, loaded machine code out.

``driver.py`` runs trace → passes → backend for a :class:`~.request.CompileRequest`;
``cached.py`` puts the offline cache around it (keys in ``cache_keys.py``, from the
fingerprints of ``frontend/fingerprint.py``; storage in ``cache_policy.py``);
``backends/`` holds one backend per target with its capabilities; ``report.py`` and
``stages.py`` are what a compiled kernel shows. It imports the frontend, the passes,
codegen and the runtime, never the session's configuration object: the language layer
(``lang/``) builds the requests.

This file imports nothing, so importing one module of the package does not import the
rest.
"""
