"""ti_notebook's version, in a module of its own: the offline cache keys on it, and the
compiler must not import the package's public face to learn it.

    >>> import ti_notebook
    >>> __version__ == ti_notebook.__version__
    True
"""

__version__ = "0.1.0"
