"""User-facing language objects: types, fields, kernels, ``ti.init``.

The top layer: ``kernel.py`` and ``session.py`` drive the compiler (``compiler/``) with
requests built from the session's ``Config``; the frontend and the offline cache's
fingerprints read the user's objects (fields, SNodes, funcs) from the modules here that
import no compiler (``func.py`` rather than ``kernel.py``).
"""
