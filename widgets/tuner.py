"""``tune(kernel, *args, block_dim=[...])``: sliders that re-time a kernel live.

One control per option given: a SelectionSlider over the values for ``parallelize``
and ``block_dim``, ToggleButtons for ``serialize``. Moving one applies the choice with
``kernel.configure(...)`` (a default the kernel's own ``ti.loop_config`` lines still
override), runs the kernel once to compile it (or load it from the offline cache: a
value seen before is a cache hit, not a compile) and times ``repeat`` more calls. The
plot (time against the first option) and the table below it grow with every
measurement; "sweep" measures every combination. ``tuner.results`` is the data.

While the tuner is open the kernel runs with the last choice. ``tuner.apply_best()``
keeps the fastest one; ``tuner.close()`` (or ``restore()``) puts back the
configuration the kernel had before.

    >>> import ti_notebook as ti
    >>> from ti_notebook.widgets import tune
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=1024)
    >>> @ti.kernel
    ... def scale(k: ti.f32):
    ...     for i in x:
    ...         x[i] = x[i] * k + 1
    >>> tuner = tune(scale, 2.0, block_dim=[16, 64], repeat=2)
    >>> tuner.sweep()
    >>> sorted(r.options["block_dim"] for r in tuner.results)
    [16, 16, 64]
    >>> tuner.close(); scale.configuration
    {}
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence

import ipywidgets as widgets
from matplotlib.figure import Figure

import ti_notebook as ti
from ti_notebook.widgets.render import inline_svg, svg_text
from ti_notebook.widgets.tuner_plot import results_table, tune_figure
from ti_notebook.widgets.tuning import OPTIONS, Measurement
from ti_notebook.widgets.tuning import measure as measure_once

__all__ = ["Tuner", "thread_count", "tune"]


def thread_count() -> int:
    """The CPU threads kernels run on: ``ti.init(cpu_max_num_threads=...)`` or every core.

    >>> thread_count() >= 1
    True
    """
    cores = os.cpu_count() or 1
    limit = ti.init_options().get("cpu_max_num_threads", 0) if ti.is_initialized() else 0
    return min(limit, cores) if limit else cores


def _choices(parallelize, block_dim, serialize) -> dict[str, list]:
    given = {"parallelize": parallelize, "block_dim": block_dim, "serialize": serialize}
    choices = {}
    for name in OPTIONS:
        values = given[name]
        if values is None:
            continue
        if name == "serialize" and isinstance(values, bool):
            values = [False, True]  # serialize=True: compare both
        values = [values] if isinstance(values, int) and name != "serialize" else list(values)
        if not values:
            raise ValueError(f"tune: {name} needs at least one value")
        if len(set(values)) != len(values):
            raise ValueError(f"tune: {name} lists a value twice: {values}")
        choices[name] = values
    if not choices:
        raise ValueError("tune: give the values to try, e.g. tune(k, block_dim=[32, 64, 128])")
    return choices


class Tuner:
    """The tuner's state and widgets; ``tune(...)`` makes one (see the module).

    ``controls`` maps each option to its control, ``widget`` is the whole view (a
    VBox), ``results`` the measurements in the order taken, ``choices`` the values
    given per option and ``original`` the kernel's configuration before tuning.
    """

    def __init__(self, kernel: ti.Kernel, args: tuple, choices: dict[str, list], repeat: int):
        if not isinstance(kernel, ti.Kernel):
            raise TypeError(f"tune: expected a ti.kernel, got {type(kernel).__name__}")
        self.kernel, self.args, self.choices, self.repeat = kernel, args, choices, repeat
        self.results: list[Measurement] = []
        # what configure() held before tuning: the base every choice extends and what
        # close() puts back
        self.original = kernel.configuration
        self.controls = {name: self._control(name, values) for name, values in choices.items()}
        self.sweep_button = widgets.Button(description="sweep", icon="refresh")
        self.sweep_button.on_click(lambda _button: self.sweep())
        self.status = widgets.HTML()
        self.picture = widgets.HTML()  # the plot as inline SVG
        self.table = widgets.HTML()
        self.widget = widgets.VBox(
            [
                widgets.HBox([*self.controls.values(), self.sweep_button]),
                self.status,
                self.picture,
                self.table,
            ]
        )
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.measure()  # the first point: the plot is never empty

    def _control(self, name: str, values: list) -> widgets.ValueWidget:
        if name == "serialize":
            return widgets.ToggleButtons(
                options=[("serial" if v else "parallel", v) for v in values],
                description=name,
            )
        return widgets.SelectionSlider(options=values, description=name, continuous_update=False)

    @property
    def choice(self) -> dict[str, object]:
        """The values the controls show now."""
        return {name: control.value for name, control in self.controls.items()}

    def _on_change(self, _change) -> None:
        self.measure()

    def measure(self, options: dict | None = None) -> Measurement:
        """Measures ``options`` (default: the controls' values) and redraws."""
        result = measure_once(
            self.kernel,
            self.args,
            self.choice if options is None else options,
            base=self.original,
            repeat=self.repeat,
        )
        self.results.append(result)
        self._redraw()
        return result

    def sweep(self) -> None:
        """Measures every combination of the options' values, in order."""
        for combo in itertools.product(*self.choices.values()):
            self.measure(dict(zip(self.choices, combo, strict=True)))

    def best(self) -> Measurement | None:
        """The measurement with the lowest median, None before any."""
        return min(self.results, key=lambda r: r.median_s, default=None)

    def apply_best(self) -> Measurement | None:
        """Configures the kernel with the fastest options measured and keeps them."""
        best = self.best()
        if best is not None:
            self.kernel.configure(**{**self.original, **best.options})
        return best

    def restore(self) -> None:
        """Puts back the configuration the kernel had before tuning."""
        if self.kernel.configuration != self.original:
            self.kernel.configure(**self.original)

    def close(self) -> None:
        """Restores the kernel's configuration and closes the widgets."""
        self.restore()
        for control in self.controls.values():
            control.unobserve(self._on_change, names="value")
        self.widget.close()

    # -- drawing -------------------------------------------------------------------------
    def figure(self) -> Figure:
        """The plot as a matplotlib Figure (``tune_figure(tuner)``, titled with the
        kernel's name and the thread count)."""
        return tune_figure(self, title=f"{self.kernel.name}: {thread_count()} threads")

    def _status_text(self) -> str:
        parts = [f"<b>{self.kernel.name}</b>", f"{thread_count()} CPU threads"]
        last = self.results[-1] if self.results else None
        if last is not None:
            parts.append(
                f"last: {last.label} median {last.median_s * 1e3:.3f} ms "
                f"({last.min_s * 1e3:.3f}–{last.max_s * 1e3:.3f}), {last.compiled}"
            )
        if not ti.profiler.is_enabled():
            parts.append("GB/s: ti.init(kernel_profiler=True)")
        elif last is not None and last.gbps is not None:
            parts.append(f"{last.gbps:.1f} GB/s")
        return " · ".join(parts)

    def _redraw(self) -> None:
        self.status.value = self._status_text()
        self.picture.value = inline_svg(svg_text(self.figure()))
        self.table.value = results_table(self.results)

    def __repr__(self) -> str:
        best = self.best()
        what = f"best {best.label}: {best.median_s * 1e3:.3f} ms" if best else "no results"
        return f"<Tuner {self.kernel.name} {len(self.results)} measurement(s), {what}>"

    def _repr_mimebundle_(self, **kwargs) -> dict:
        """The live widget, with a static SVG and text for exported notebooks."""
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["image/svg+xml"] = svg_text(self.figure())
        bundle["text/plain"] = repr(self)
        return bundle


def tune(
    kernel: ti.Kernel,
    *args,
    parallelize: Sequence[int] | None = None,
    block_dim: Sequence[int] | None = None,
    serialize: Sequence[bool] | bool | None = None,
    repeat: int = 7,
) -> Tuner:
    """Opens a tuner on ``kernel(*args)`` over the values given (see the module).

    ``serialize=True`` compares parallel and serial loops. ``repeat`` timed calls follow
    one warm-up call per measurement; the result is their median with min and max. The
    first choice of every option is measured as the tuner opens.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> y = ti.field(ti.i32, shape=64)
        >>> @ti.kernel
        ... def count():
        ...     for i in y:
        ...         y[i] += 1
        >>> tuner = tune(count, serialize=True, repeat=1)
        >>> tuner.controls["serialize"].value = True
        >>> [(dict(r.options), r.compiled) for r in tuner.results]
        [({'serialize': False}, 'miss'), ({'serialize': True}, 'miss')]
    """
    return Tuner(kernel, args, _choices(parallelize, block_dim, serialize), repeat)
