"""Which cache directory a compilation uses, and keeping it within its size.

One :class:`~ti_notebook.cache.store.CacheStore` per directory and backend (named by
its ``cache_subdir``: ``cpu/`` today). The store on disk is ``store.py``; this module
decides which one, counts hits and misses for ``ti.cache.info()``, and cleans the
directory by ``offline_cache_cleaning_policy`` when it grows past
``offline_cache_max_size_of_files`` (``session/cache.py`` also cleans at exit, as Taichi
does, with the settings of the session then current).

    >>> settings = CacheSettings(path="/tmp/ti_notebook_doctest_policy")
    >>> store = store_for(settings, "cpu")
    >>> store.dir.name, sorted(info(settings, "cpu"))
    ('cpu', ['enabled', 'entries', 'hits', 'misses', 'path', 'total_bytes', 'uncacheable'])
"""

from __future__ import annotations

import contextlib
import weakref

from ti_notebook.cache.store import CacheStore, default_path
from ti_notebook.compiler.request import CacheSettings
from ti_notebook.version import __version__

stats = {"hits": 0, "misses": 0, "uncacheable": 0}
# key -> the loaded code of an entry (runtime/cpu/kernel_code.py) while a kernel of this
# process holds it: weak, so the code is freed with the last kernel that runs it
loaded: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_stores: dict[tuple[str, str], CacheStore] = {}


def remember_loaded(key: str, code: object) -> None:
    """Notes that entry ``key``'s code is loaded (a target whose code this process does
    not hold, CUDA's PTX, has nothing to note)."""
    with contextlib.suppress(TypeError):  # an int address, None: nothing to share
        loaded[key] = code


def store_for(settings: CacheSettings, target: str) -> CacheStore:
    """The store of ``settings``' directory for one backend's entries (its
    ``cache_subdir``: ``target``)."""
    path = settings.path or default_path()
    if (path, target) not in _stores:
        _stores[path, target] = CacheStore(path, __version__, target)
    return _stores[path, target]


def keep_within_size(store: CacheStore, settings: CacheSettings) -> None:
    """Cleans ``store`` by the policy once it is over the size limit."""
    if store.total_bytes() > settings.max_size:
        store.clean(settings.policy, settings.max_size)


def info(settings: CacheSettings, target: str) -> dict:
    """The directory's entries, their total size, and this process's counts."""
    store = store_for(settings, target)
    return dict(store.info(), enabled=settings.enabled, **stats)


def clear(settings: CacheSettings, target: str) -> None:
    """Deletes every entry of the directory (for one backend)."""
    store_for(settings, target).clear()
    loaded.clear()


def clean(settings: CacheSettings, target: str) -> None:
    """Cleans the directory by the policy (nothing for ``never`` or a cache turned off)."""
    if settings.enabled and settings.policy != "never":
        store = store_for(settings, target)
        if store.dir.is_dir():
            store.clean(settings.policy, settings.max_size)
