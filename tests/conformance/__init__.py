"""``make compat``: Taichi's own examples, run headless with Taichi and with ti_notebook.

Every example that ships in the taichi wheel (``taichi/examples/``, all folders) runs in
a subprocess twice: once with Taichi, once with ``taichi`` mapped to ti_notebook. Both
runs get the same treatment: ``ti.init`` forced to the CPU with a fixed random seed,
NumPy and ``random`` seeded, the same frame budget. ti_notebook's run draws with its own
``ti.GUI``/``ti.ui.Window`` (``TI_GUI_MAX_FRAMES``) and must keep a picture of its last
frame; Taichi's run, the reference, gets headless stand-ins that end the loop after
the same frames. At the end of each run every field and ndarray reachable from the
example goes into an ``.npz``; the two are compared and the table goes to
``benchmarks/compat.md``.

    python -m tests.conformance                       # everything, writes compat.md
    python -m tests.conformance --only mpm --frames 3 --backend both
    python -m tests.conformance --only minimal --backend ti_notebook --out -

The modules, one concept each:

- :mod:`.examples`: where the wheel's examples are, without importing taichi;
- :mod:`.settings`: the per-example table (frames, timeout, argv, rewrites, tolerances);
- :mod:`.skips`: what is skipped and why, decided from the source before running;
- :mod:`.budget`: the frame budget both runs share, and what each ``show()`` notes;
- :mod:`.gui_stub`, :mod:`.ggui_stub`: Taichi's headless ``ti.GUI`` and ``ti.ui.Window``;
- :mod:`.observe`: ti_notebook's own windows with the budget, and their pictures;
- :mod:`.mapping`: ``taichi`` -> ti_notebook in ``sys.modules``, the forced ``ti.init``;
- :mod:`.shims`: environment drift (matplotlib) and the deterministic clock;
- :mod:`.dump`: the arrays an example's objects hold;
- :mod:`.child`: one example, one backend, in this process;
- :mod:`.compare`: two runs' arrays against each other;
- :mod:`.runner`: the subprocesses, their timeouts, one row per example;
- :mod:`.report`: the table and its markdown.

>>> from tests.conformance import examples
>>> examples.relative_name("simulation/mpm88.py")
'simulation/mpm88'
"""
