"""``ti.cache``: the offline cache of the current session, seen from Python.

``info()`` lists the directory's entries with this process's hit and miss counts;
``clear()`` empties it. At exit the directory is cleaned by the session's
``offline_cache_cleaning_policy`` (Taichi's behaviour). The policy itself is the
cache package's (``cache/policy.py``); this module only supplies the session.

    >>> import ti_notebook as ti
    >>> sorted(ti.cache.info())
    ['enabled', 'entries', 'hits', 'misses', 'path', 'total_bytes', 'uncacheable']
"""

from __future__ import annotations

import atexit

from ti_notebook.cache import policy as cache_policy
from ti_notebook.session import config as _config


def info() -> dict:
    """The cache directory's entries, their total size, and this process's counts.

    >>> import ti_notebook as ti
    >>> ti.cache.info()["hits"] >= 0
    True
    """
    config = _config.current()
    return cache_policy.info(config.cache_settings(), _target(config))


def clear() -> None:
    """Deletes every entry of the current cache directory."""
    config = _config.current()
    cache_policy.clear(config.cache_settings(), _target(config))


def _target(config: _config.Config) -> str:
    # the backend says where its entries go (made, not started: no JIT, no device)
    return config.backend().cache_subdir


def _clean_at_exit() -> None:
    config = _config.current()
    cache_policy.clean(config.cache_settings(), _target(config))


atexit.register(_clean_at_exit)
