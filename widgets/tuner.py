"""``tune(kernel, *args, block_dim=[...])``: sliders that re-time a kernel live.

One control per option given: a SelectionSlider over the values for ``parallelize``
and ``block_dim``, ToggleButtons for ``serialize``. Moving one applies the choice with
``kernel.configure(...)`` (a default the kernel's own ``ti.loop_config`` lines still
override) and measures it with the one timing protocol (``ti.profiler.measure``): the
first call apart (it compiles, loads from the offline cache, or finds the code the
kernel already holds), then ``repeat`` samples summarised by their median and
interquartile range. "sweep" measures every combination, interleaved round by round,
with a progress bar and a Stop button; afterwards the controls show the fastest setting
and the kernel keeps it. ``tuner.results`` holds one record per setting (measuring one
again replaces it); the plot and the table below the controls show them, and a setting
more than twice as slow as the best says why where the compiler's report shows it.

``tuner.close()`` (or ``restore()``) puts back the configuration the kernel had before.

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
    [16, 64]
    >>> best = tuner.best().options["block_dim"]  # the controls and the kernel keep it
    >>> tuner.choice["block_dim"] == scale.configuration["block_dim"] == best
    True
    >>> tuner.close(); scale.configuration
    {}
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import threading
from collections.abc import Callable, Sequence

import ipywidgets as widgets
from matplotlib.figure import Figure

import ti_notebook as ti
from ti_notebook.widgets.kernel_events import widget_events
from ti_notebook.widgets.render import inline_svg, static_bundle, svg_text
from ti_notebook.widgets.tuner_plot import results_table, tune_figure
from ti_notebook.widgets.tuner_progress import SweepProgress
from ti_notebook.widgets.tuner_reasons import reasons_against_best
from ti_notebook.widgets.tuning import (
    OPTIONS,
    Measurement,
    Stopped,
    counted_bytes,
    measure_settings,
)

__all__ = ["SLOW_FACTOR", "Tuner", "thread_count", "tune"]

SLOW_FACTOR = 2.0  # a setting this many times the best one's median gets its cause shown


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


def _key(options) -> tuple:
    return tuple(sorted(dict(options).items()))


class Tuner:
    """The tuner's state and widgets; ``tune(...)`` makes one (see the module).

    ``controls`` maps each option to its control, ``widget`` is the whole view (a
    VBox), ``results`` one record per setting measured (in the order first measured),
    ``latest`` the options measured last, ``choices`` the values given per option,
    ``original`` the kernel's configuration before tuning and ``bytes_per_call`` what
    one call moves by the compiler's count (None where it cannot count).
    """

    def __init__(self, kernel: ti.Kernel, args: tuple, choices: dict[str, list], repeat: int):
        if not isinstance(kernel, ti.Kernel):
            raise TypeError(f"tune: expected a ti.kernel, got {type(kernel).__name__}")
        self.kernel, self.args, self.choices, self.repeat = kernel, args, choices, repeat
        self.threads = thread_count()
        self._rows: dict[tuple, Measurement] = {}
        self.latest: dict | None = None
        self.bytes_per_call: int | None = None
        # what configure() held before tuning: the base every choice extends and what
        # close() puts back
        self.original = kernel.configuration
        self._quiet = False  # set while the tuner itself moves the controls
        self._sweeping: threading.Thread | None = None
        self.controls = {name: self._control(name, values) for name, values in choices.items()}
        self.sweep_button = widgets.Button(description="sweep", icon="refresh")
        # from the button, the sweep runs beside the kernel's main thread, which stays
        # free to handle the Stop button's click
        self.sweep_button.on_click(lambda _button: self.sweep(background=True))
        self.progress = SweepProgress()
        self.status = widgets.HTML()
        self.picture = widgets.HTML()  # the plot as inline SVG
        self.table = widgets.HTML()
        self.widget = widgets.VBox(
            [
                widgets.HBox([*self.controls.values(), self.sweep_button]),
                self.progress.widget,
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
    def results(self) -> list[Measurement]:
        """One record per setting measured, in the order first measured."""
        return list(self._rows.values())

    @property
    def choice(self) -> dict[str, object]:
        """The values the controls show now."""
        return {name: control.value for name, control in self.controls.items()}

    def _on_change(self, _change) -> None:
        if not self._quiet and self._sweeping is None:
            self.measure()

    def _settings(self, settings: Sequence[dict], **protocol) -> list[Measurement]:
        measured = measure_settings(
            self.kernel,
            self.args,
            settings,
            base=self.original,
            rounds=self.repeat,
            bytes_per_call=self.bytes_per_call,
            **protocol,
        )
        if self.bytes_per_call is None and measured:
            # counted once the first setting is compiled, so its first call compiled it
            self.bytes_per_call = counted_bytes(self.kernel, self.args)
            if self.bytes_per_call:
                measured = [
                    dataclasses.replace(
                        r,
                        bytes_per_call=self.bytes_per_call,
                        gbps=self.bytes_per_call / r.median_s / 1e9 if r.median_s > 0 else None,
                    )
                    for r in measured
                ]
        return measured

    def measure(self, options: dict | None = None) -> Measurement:
        """Measures ``options`` (default: the controls' values) and redraws."""
        options = self.choice if options is None else dict(options)
        result = self._record(self._settings([options]))[0]
        self.latest = options
        self._redraw()
        return result

    def sweep(
        self, should_stop: Callable[[], bool] | None = None, *, background: bool = False
    ) -> None:
        """Measures every combination of the options' values, interleaved.

        ``should_stop()`` is asked before each step, as the Stop button is: the sweep
        ends there and keeps the settings measured. ``background=True`` runs it in a
        thread (what the sweep button does) and returns at once.
        """
        if self._sweeping is not None:
            return  # one sweep at a time
        settings = [
            dict(zip(self.choices, combo, strict=True))
            for combo in itertools.product(*self.choices.values())
        ]
        self._sweeping = threading.current_thread()  # controls ignored from now on
        if background:
            thread = threading.Thread(
                target=self._run_sweep, args=(settings, should_stop, False), daemon=True
            )
            self._sweeping = thread
            thread.start()
        else:
            self._run_sweep(settings, should_stop, True)

    def _run_sweep(self, settings: list[dict], should_stop, text: bool) -> None:
        total = len(settings) * (self.repeat + 1)
        self.progress.start(total, text=text)
        self._enable(False)

        said: list[bool] = []  # whether a stop was asked for, once it was
        # a sweep run by a cell blocks the kernel: between samples (never inside one) it
        # lets the kernel handle widget messages, so a click on Stop arrives
        events = widget_events() if text else contextlib.nullcontext(lambda: None)

        measured: list[Measurement] = []
        try:
            with events as poll:

                def stop() -> bool:
                    poll()
                    if self.progress.should_stop() or bool(should_stop and should_stop()):
                        said.append(True)
                    return bool(said)

                measured = self._record(
                    self._settings(settings, progress=self.progress.update, should_stop=stop)
                )
        except Stopped:
            pass
        finally:  # an error in the kernel still leaves the controls usable
            self._sweeping = None
            self._enable(True)
            stopped = " (stopped)" if said else ""
            self.progress.finish(f"sweep{stopped}: {len(measured)} of {len(settings)} settings")
        best = self.apply_best()
        if best is not None:
            self._show(best.options)
            self.latest = dict(best.options)
        self._redraw()

    def _enable(self, enabled: bool) -> None:
        """Controls and the sweep button are off while a sweep moves the kernel."""
        for control in (*self.controls.values(), self.sweep_button):
            control.disabled = not enabled

    def _record(self, measured: list[Measurement]) -> list[Measurement]:
        """Adds or replaces each setting's row, then gives slow rows their cause."""
        for result in measured:
            self._rows[_key(result.options)] = result
        best = self.best()
        for key, row in self._rows.items():
            reason = tag = None
            if best is not None and row.median_s > SLOW_FACTOR * best.median_s:
                causes = reasons_against_best(
                    row.tasks, self.threads, row.options, row.median_s, best.tasks, best.options
                )
                reason = "; ".join(c.text for c in causes) or "the report shows no cause"
                tag = ", ".join(c.tag for c in causes) or None
            if (row.reason, row.reason_tag) != (reason, tag):
                self._rows[key] = dataclasses.replace(row, reason=reason, reason_tag=tag)
        return [self._rows[_key(r.options)] for r in measured]

    def _show(self, options) -> None:
        """Moves the controls to ``options`` without measuring them again."""
        self._quiet = True
        try:
            for name, control in self.controls.items():
                if name in options:
                    control.value = options[name]
        finally:
            self._quiet = False

    def best(self) -> Measurement | None:
        """The setting with the lowest median, None before any."""
        return min(self._rows.values(), key=lambda r: r.median_s, default=None)

    def apply_best(self) -> Measurement | None:
        """Configures the kernel with the fastest setting measured and keeps it."""
        best = self.best()
        if best is not None:
            wanted = {**self.original, **best.options}
            if self.kernel.configuration != wanted:
                self.kernel.configure(**wanted)
        return best

    def restore(self) -> None:
        """Puts back the configuration the kernel had before tuning."""
        if self.kernel.configuration != self.original:
            self.kernel.configure(**self.original)

    def close(self) -> None:
        """Stops a sweep, restores the kernel's configuration and closes the widgets."""
        sweeping = self._sweeping
        if isinstance(sweeping, threading.Thread) and sweeping is not threading.current_thread():
            self.progress.stop_button.click()
            sweeping.join()
        self.restore()
        for control in self.controls.values():
            control.unobserve(self._on_change, names="value")
        self.widget.close()

    # -- drawing -------------------------------------------------------------------------
    def figure(self) -> Figure:
        """The plot as a matplotlib Figure (``tune_figure(tuner)``, titled with the
        kernel's name and the thread count)."""
        return tune_figure(self, title=f"{self.kernel.name}: {self.threads} threads")

    def _status_text(self) -> str:
        parts = [f"<b>{self.kernel.name}</b>", f"{self.threads} CPU threads"]
        best = self.best()
        if best is not None:
            parts.append(
                f"best: {best.label}, median {best.median_s * 1e3:.3g} ms "
                f"(IQR {best.q1_s * 1e3:.3g}–{best.q3_s * 1e3:.3g} ms, "
                f"{best.samples_n} samples)"
            )
            bandwidth = "GB/s not counted" if best.gbps is None else f"{best.gbps:.3g} GB/s"
            parts.append(bandwidth)
        latest = self._rows.get(_key(self.latest or {}))
        if latest is not None and latest is not best:
            parts.append(f"shown: {latest.label}, {latest.median_s * 1e3:.3g} ms")
        return " · ".join(parts)

    def _redraw(self) -> None:
        # The table and status go first so that a frontend showing the new plot point
        # already shows the row it stands for (the browser test waits on the point).
        self.status.value = self._status_text()
        self.table.value = results_table(self.results)
        self.picture.value = inline_svg(svg_text(self.figure()))

    def __repr__(self) -> str:
        best = self.best()
        what = f"best {best.label}: {best.median_s * 1e3:.3g} ms" if best else "no results"
        return f"<Tuner {self.kernel.name} {len(self._rows)} setting(s), {what}>"

    def _repr_mimebundle_(self, **kwargs) -> dict:
        """The live widget, with a static SVG and text for exported notebooks."""
        live = self.widget._repr_mimebundle_(**kwargs)
        return static_bundle(live, self.figure(), repr(self))


def tune(
    kernel: ti.Kernel,
    *args,
    parallelize: Sequence[int] | None = None,
    block_dim: Sequence[int] | None = None,
    serialize: Sequence[bool] | bool | None = None,
    repeat: int = 7,
) -> Tuner:
    """Opens a tuner on ``kernel(*args)`` over the values given (see the module).

    ``serialize=True`` compares parallel and serial loops. Each measurement times the
    first call apart and then takes ``repeat`` samples (the protocol's rounds). The
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
