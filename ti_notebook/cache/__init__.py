"""The offline cache in one place (DESIGN.md section 7).

``keys.py`` computes a kernel's key before tracing from ``fingerprint.py``'s prints of
the values it reads; ``compile.py`` compiles through the cache (look up, else compile
and store); ``policy.py`` picks the store of a directory and keeps it within its size;
``store.py`` is the directory on disk, ``files.py`` its trusted, atomic file access.
The session drives it (``session/compiling.py`` finalises ``ti.root``'s pending tree
first, so keying never has side effects); it uses the compiler's driver and reads the
user's objects to key them; nothing below the session imports it.

This file imports nothing: ``import ti_notebook.cache.files`` (the ceilings' file, say)
does not pull in the compiler.

    >>> from ti_notebook.cache.keys import full_key
    >>> len(full_key("pre", []))
    64
"""
