"""``%%kernel``: a notebook cell whose top-level functions become ti_notebook kernels.

    %load_ext ti_notebook

    %%kernel --show ir
    x = ti.field(ti.f32, shape=1024)
    def fill(v: ti.f32):
        for i in x:
            x[i] = v

prints ``fill: compiled in 31.0 ms (cache miss) | tasks: ... | passes: ...`` and the IR,
and leaves the kernel ``fill`` in the notebook's namespace. Kernels whose arguments are
all scalars (or typed ndarrays) compile when the cell runs, so compile errors show at once,
pointing at the cell's own line. See ``%%kernel?`` for every option.
"""

from __future__ import annotations

import ast
import inspect
import sys

from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

import ti_notebook as ti
from ti_notebook.magics.annotate_view import annotate_bundle
from ti_notebook.magics.cell import parse_body, register_source, run_body
from ti_notebook.magics.cell_errors import (
    KernelCellError,
    cell_error,
    debug_enabled,
    internal_error_lines,
    python_error_lines,
    ti_error_lines,
)
from ti_notebook.magics.cell_options import (
    asks_for_help,
    compiles_now,
    configurer,
    example,
    positive_int,
    select_arch,
)
from ti_notebook.magics.compile_split import split_text
from ti_notebook.magics.compile_watch import (
    CellProgress,
    KernelCellInterrupt,
    compile_watch,
    interrupt_lines,
)
from ti_notebook.magics.grad_option import grad_kernels
from ti_notebook.magics.layout_option import layout_views
from ti_notebook.magics.profile import SWITCHED_ON, CellProfile
from ti_notebook.magics.report import (
    CUDA_STAGES,
    STAGES,
    deferred_line,
    stage_bundle,
    stage_text,
    summary_line,
)
from ti_notebook.magics.report_view import report_bundle
from ti_notebook.magics.tune_option import parse_tune, tune_cell


@magics_class
class KernelMagics(Magics):
    """The ``%%kernel`` cell magic (``%load_ext ti_notebook`` registers it)."""

    @magic_arguments(name="%kernel")  # the help formatter adds one "%"
    @argument(
        "--arch",
        choices=["cpu", "cuda"],
        help="run ti.init(arch=...) first if the session uses another arch (this frees the "
        "fields made before); cuda falls back to cpu with a warning when there is no CUDA "
        "device (ti.init(arch=ti.cuda, cuda_sim=True) runs CUDA code on the SIMT emulator). "
        "--show ptx and --show resources compile for CUDA in any case.",
    )
    @argument(
        "--show",
        action="append",
        default=[],
        choices=STAGES,
        metavar="STAGE",
        help="after compiling, show this stage of every kernel of the cell, highlighted: "
        + ", ".join(STAGES)
        + ". Repeat the flag for several stages.",
    )
    @argument(
        "--no-cache",
        action="store_true",
        help="compile this cell's kernels without the offline cache (the line says 'cache off').",
    )
    @argument(
        "--parallelize",
        type=positive_int,
        metavar="N",
        help="default ti.loop_config(parallelize=N) for every outermost loop of the cell's "
        "kernels (N CPU threads); a ti.loop_config in the kernel wins.",
    )
    @argument(
        "--block-dim",
        type=positive_int,
        metavar="N",
        help="default ti.loop_config(block_dim=N) for every outermost loop of the cell's "
        "kernels; a ti.loop_config in the kernel wins.",
    )
    @argument(
        "--profile",
        action="store_true",
        help="show the kernel profiler's record of the launches this cell makes: per "
        "specialisation (add_one[a=rows]), launches, total, min, median and max ms, GB/s and "
        "%% of the copy bandwidth where known, as a table and a bar chart of total time. "
        "Turns the profiler on for the session if it is off (ti.profiler.enable()). "
        "Before it: where each kernel compiled in the cell spent its compile time (tracing, "
        "the passes and the slowest of them, LLVM IR, LLVM's optimisation, machine code).",
    )
    @argument(
        "--tune",
        action="append",
        default=[],
        type=parse_tune,
        metavar="OPTION=V1,V2",
        help="open the loop_config tuner (ti_notebook.widgets.tune) on the cell's one kernel "
        "with scalar arguments only (passed as 0), over these values of parallelize, "
        "block_dim or serialize; repeat the flag for several options. The cell's value is "
        "the tuner.",
    )
    @argument(
        "--grad",
        action="store_true",
        help="also compile the grad kernel (kernel.grad: what ti.ad.Tape runs) of every "
        "kernel whose arguments are all scalars or typed ndarrays, print its line (named "
        "kernel.grad) and apply --show to it. Without the flag, only the grad kernels the "
        "cell ran get a line and --show.",
    )
    @argument("--quiet", action="store_true", help="do not print the one-line summary per kernel.")
    @line_cell_magic
    def kernel(self, line: str, cell: str | None = None):
        """Runs the cell as Python; its top-level functions become ti_notebook kernels.

        Statements run in order in the notebook's namespace. Right after a top-level
        def runs, the function becomes a kernel (as if decorated @ti.kernel); functions
        decorated @ti.func stay funcs. Statements before a def run before its kernel is
        made; statements after it may launch it. A kernel whose arguments are all
        scalars (or ndarrays with dtype and ndim given) compiles just before the first
        statement that names it, or when the cell ends, and prints one line: compile
        time, cache hit or miss, tasks with their loop_config, the passes that fired.
        Kernels with ti.template() arguments compile at their first call. A trailing
        expression's value is the cell's output. {name} in the magic line is replaced
        by the value of name in the notebook's namespace.

        A kernel's grad kernel (kernel.grad, what ti.ad.Tape runs) gets its own line,
        named kernel.grad, when the cell ran it, or with --grad when it can compile now;
        --show shows its stages too (make_adjoint is among its passes).

        With --profile the kernel profiler (ti.profiler) is on while the cell runs (the
        magic turns it on for the session if it was off, and says so); after the cell a
        table shows this cell's launches, one row per specialisation, with a bar chart
        of their total time (also in ti.profiler.launches() and
        ti.profiler.export_trace(path)). Before the table, each kernel the cell compiled
        shows where its compile time went, stage by stage (kernel.report.stage_times); a
        compile over a second names its slowest stage in its summary line in any case.

        Errors point at the cell's line and column with a caret; set TI_DEBUG=1 to see
        the compiler's frames as well. %%kernel -h (or --help, or %kernel?) prints this.

        Example:

            %%kernel --parallelize 4 --show llvm_optimized
            x = ti.field(ti.f32, shape=1024)
            def fill(v: ti.f32):
                for i in x:
                    x[i] = v

            %%kernel --profile
            def add_one(a: ti.template()):
                for i in a:
                    a[i] += 1
            for _ in range(3):
                add_one(x)
        """
        if cell is None or asks_for_help(line):  # %kernel alone, or -h / --help
            print(self.help_text())
            return None
        args = parse_argstring(self.kernel, line)
        select_arch(args.arch)
        filename = register_source(self.shell, line, cell)
        stages: dict = {}

        def summarise(name: str, kernel) -> None:
            stages[name] = kernel_stages = self._compile(name, kernel)
            if not args.quiet:
                report = kernel_stages["report"] if kernel_stages is not None else None
                text = summary_line(name, report) if report is not None else deferred_line(name)
                if not progress.summary(name, text):  # a long compile's line becomes it
                    print(text)

        def before(statement, run) -> None:
            # a kernel compiles just before the first statement naming it runs, so its
            # line comes before what that statement prints
            named = {node.id for node in ast.walk(statement) if isinstance(node, ast.Name)}
            for name, kernel in list(run.kernels.items()):
                if name in named and name not in stages and compiles_now(kernel):
                    try:
                        summarise(name, kernel)
                    except Exception:  # the statement's own call reports it, in place
                        stages.pop(name, None)

        with CellProgress(self.shell, quiet=args.quiet) as progress:
            try:
                module = parse_body(cell, filename)
                profile = self._start_profile() if args.profile else None
                run = run_body(self.shell, module, filename, configurer(args), before)
                for name, kernel in run.kernels.items():  # the others, as they compile
                    if name not in stages:
                        summarise(name, kernel)
                grads = grad_kernels(run.kernels, eager=args.grad)
                for name, grad in grads.items():  # after the cell: what its Tapes ran
                    summarise(name, grad)
            except KeyboardInterrupt as error:
                short = None if debug_enabled() else self._interrupted(error, filename)
                if short is None:
                    raise
                raise short from None
            except Exception as error:
                if debug_enabled() or isinstance(error, KernelCellError):
                    raise
                raise self._short_error(error, filename) from None
        shown = {**run.kernels, **grads}
        self._show([s for s in args.show if s != "layout"], stages, shown, filename)
        if "layout" in args.show:
            self._show_layouts(run.kernels, stages)
        if profile is not None:
            for name, kernel_stages in stages.items():
                if kernel_stages is not None:
                    print(split_text(name, kernel_stages["report"]))
            for bundle in profile.outputs():
                display(bundle, raw=True)
        if args.tune:
            tuner = self._tune(run.kernels, args.tune)
            if run.value is None:
                return tuner
            display(tuner)
        return run.value

    def help_text(self) -> str:
        """The usage, what the magic does and its flags, as plain text."""
        return KernelMagics.kernel.__doc__

    # -- helpers ------------------------------------------------------------------------
    @staticmethod
    def _start_profile() -> CellProfile:
        """Marks where the cell's launches begin (turning the profiler on if it is off)."""
        profile = CellProfile()
        if profile.switched_on:
            print(SWITCHED_ON)
        return profile

    def _compile(self, name: str, kernel):
        """The kernel's stages once compiled now (None: it compiles at its first call)."""
        try:
            examples = [example(p) for p in kernel.parameters]
            if None in examples:
                try:  # launched by the cell already? then its last specialisation
                    return kernel.stages()
                except ti.errors.TiTypeError:
                    return None
            return kernel.stages(*examples)
        except Exception as error:
            if debug_enabled():
                raise
            if isinstance(error, ti.errors.TiError):
                if error.pos is None:
                    error.locate(kernel.definition_pos())
                lines = ti_error_lines(error, self._place)
            else:
                where = self._place(kernel.definition_pos().filename)
                lines = internal_error_lines(error, name, where)
            raise cell_error(error, lines) from None

    def _cuda_stages(self, name: str, kernel):
        """The kernel's stages compiled for CUDA (sm_90), whatever the session's arch."""
        examples = [example(p) for p in kernel.parameters]
        if None in examples:
            print(
                f"{name}: no CUDA stages: its template parameters need example arguments "
                f'(kernel.stages(x, arch="cuda"))',
                file=sys.stderr,
            )
            return {}
        try:
            return kernel.stages(*examples, arch="cuda")
        except ti.errors.TiError as error:
            if debug_enabled():
                raise
            raise cell_error(error, ti_error_lines(error, self._place)) from None

    def _tune(self, kernels: dict, options: list):
        try:
            return tune_cell(kernels, options)
        except ti.errors.TiError as error:
            if debug_enabled():
                raise
            raise cell_error(error, ti_error_lines(error, self._place)) from None

    def _show(self, wanted: list[str], stages: dict, kernels: dict, filename: str) -> None:
        if wanted and not stages:
            print("--show: this cell defines no kernel", file=sys.stderr)
        cuda_stages: dict[str, object] = {}
        for stage in dict.fromkeys(wanted):
            for name, kernel_stages in stages.items():
                if kernel_stages is None:
                    print(f"{name}: no {stage} yet: it compiles at its first call", file=sys.stderr)
                    continue
                if stage in CUDA_STAGES and stage not in kernel_stages:
                    # a CPU session (no device): compile for CUDA too, no device needed
                    if name not in cuda_stages:
                        cuda_stages[name] = self._cuda_stages(name, kernels[name])
                    kernel_stages = cuda_stages[name]
                if stage == "annotate":
                    text = kernel_stages.get("annotate") or ""
                    display(annotate_bundle(text, self._place, filename), raw=True)
                    continue
                if stage == "report":
                    display(report_bundle(name, kernel_stages["report"]), raw=True)
                    continue
                text = stage_text(kernel_stages, stage)
                if text is None:
                    arch = ti.current_arch()
                    print(f"{name}: no {stage} stage: compiled for {arch}", file=sys.stderr)
                    continue
                display(stage_bundle(name, stage, text), raw=True)

    def _show_layouts(self, kernels: dict, stages: dict) -> None:
        for name, view in layout_views(kernels, stages, self.shell.user_ns):
            if view is None:
                print(
                    f"{name}: no layout to show: no named field (or not compiled yet)",
                    file=sys.stderr,
                )
            else:
                display(view)

    def _place(self, filename: str) -> str:
        """``Cell In[3]`` for a cell IPython cached, else ``File "name"``."""
        label = self.shell.compile.format_code_name(filename)
        return f"{label[0]} {label[1]}" if label else f'File "{filename}"'

    def _interrupted(self, error: KeyboardInterrupt, filename: str):
        """The one-line report of an interrupt that stopped a compile (None: it did not):
        the kernel, the stage, and the cell's line that started the compile (the
        statement that called it, else its def)."""
        stopped = compile_watch().stopped_by(error)
        if stopped is None:
            return None
        default = None
        kernel = self.shell.user_ns.get(stopped[0])
        if isinstance(kernel, ti.Kernel):
            try:
                pos = kernel.definition_pos()
                default = (self._place(pos.filename), pos.filename, pos.lineno)
            except ti.errors.TiError:  # no source to point at: the message alone
                pass
        lines = interrupt_lines(
            stopped, error, lambda f: self._place(f) if f == filename else None, default
        )
        return KernelCellInterrupt(lines)

    def _short_error(self, error: BaseException, filename: str):
        if isinstance(error, ti.errors.TiError):
            return cell_error(error, ti_error_lines(error, self._place))
        return cell_error(error, python_error_lines(self.shell, error, filename))


# The help is the docstring as written (IPython's formatter keeps the description's
# lines), without the source's indentation: what %kernel?, -h and --help show.
_PARSER = KernelMagics.kernel.parser
_PARSER.description = inspect.cleandoc(_PARSER.description)
# IPython's formatter opens the usage with a reST literal-block marker ("::"): drop it
KernelMagics.kernel.__doc__ = (
    _PARSER.format_help().removeprefix("::\n\n").replace("\n  %%kernel", "\n%%kernel", 1)
)
if KernelMagics.kernel.__doc__.startswith("  %%kernel"):
    KernelMagics.kernel.__doc__ = KernelMagics.kernel.__doc__[2:]
