"""Per-example settings: frames, timeout, argv, source rewrites, comparison, skips.

Most examples need none: :data:`DEFAULT_FRAMES` frames of ``ti.GUI``, a timeout of
:data:`DEFAULT_TIMEOUT_S` seconds per run, and a comparison that is exact up to
:data:`DEFAULT_RTOL`/:data:`DEFAULT_ATOL`, or statistical when the example draws
random numbers in kernels (Taichi's and ti_notebook's generators differ). The table
holds the exceptions, each with its reason.

>>> setting_for("simulation/mpm88").frames is None
True
>>> setting_for("simulation/euler").frames
3
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_FRAMES = 5
DEFAULT_TIMEOUT_S = 300.0
DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-4
DEFAULT_STAT_TOL = 0.05  # of the arrays' scale, for means and standard deviations
MODES = ("exact", "stat", "run")  # "run": only that it runs to the end


@dataclass(frozen=True)
class Setting:
    """How one example runs and is compared; None means the default."""

    frames: int | None = None  # ti.GUI frames before `running` turns False
    timeout: float | None = None  # seconds per run (each backend)
    argv: tuple[str, ...] = ()  # command-line arguments after the file name
    # (old, new) replacements in the source, applied before it runs; both keep the
    # line count, so tracebacks and kernel source positions stay those of the file
    rewrites: tuple[tuple[str, str], ...] = ()
    mode: str | None = None  # one of MODES; None: "stat" when kernels draw random numbers
    rtol: float | None = None
    atol: float | None = None
    # (field name, atol) for fields whose values are the rounding of larger terms that
    # cancel, so that only an absolute tolerance of those terms' rounding means anything
    field_atol: tuple[tuple[str, float], ...] = ()
    stat_tol: float | None = None
    # fraction of elements allowed outside rtol/atol in "exact" mode: a threshold (an
    # escape-time count, a particle crossing a cell) turns a last-bit difference into
    # a visible one in a few places
    outliers: float = 0.0
    skip: str | None = None  # skip it, for this reason
    not_skipped: str | None = None  # why the source's skip rule does not apply
    note: str = ""  # shown in the table


_FEM_PHI = (("phi", 4e-3),)
_FEM_NOTE = (
    "phi = mu/2 (tr FᵀF - 2) - mu log J + lam/2 log² J cancels in f32 (mu = 1.7e4, "
    "tr ≈ 2: one rounding is 2e-3, |phi| ≤ 1e-4); each run's phi is that far from the "
    "f64 value of its own F, and phi feeds nothing back"
)

SETTINGS: dict[str, Setting] = {
    "patterns": Setting(skip="helper module (taichi_logo), imported by other examples"),
    "simulation/euler": Setting(
        frames=3,
        outliers=1e-3,
        note="shock capturing: limiter branches flip on last-bit differences (0.1% may differ)",
    ),
    "simulation/mandelbrot_zoom": Setting(
        outliers=5e-3,
        note="zoomed escape-time colours: pixels near the set's edge flip on last-bit "
        "differences (0.4% here; fused multiply-adds differ)",
    ),
    "simulation/fractal": Setting(
        outliers=1e-3, note="escape-time colours: a pixel on the threshold may differ (0.1%)"
    ),
    "ggui_examples/fractal3d_ggui": Setting(
        outliers=1e-3,
        note="ray-marched escape test: isolated pixels on the threshold differ (0.03%)",
    ),
    "simulation/nbody": Setting(
        stat_tol=0.2,
        note="random bodies: forces are heavy-tailed (close pairs), their std varies by draw",
    ),
    "simulation/pbf2d": Setting(
        stat_tol=0.1,
        note="random particles: the lambdas' std moves ~5% from draw to draw (Taichi too)",
    ),
    "simulation/stable_fluid": Setting(
        argv=("-S",),
        note="-S: the pressure solve by ti.linalg (sparse LLT) instead of 500 Jacobi steps",
    ),
    "rendering/sdf_renderer": Setting(
        frames=3,
        rewrites=(("interval = 10", "interval = 1"),),
        note="path tracer: a frame per sample (not per 10)",
    ),
    "algorithm/mgpcg_advanced": Setting(
        rewrites=(("max_iters=400", "max_iters=40"),),
        note="40 solver iterations instead of 400",
    ),
    "simulation/fem99": Setting(field_atol=_FEM_PHI, note=_FEM_NOTE),
    "simulation/fem128": Setting(field_atol=_FEM_PHI, note=_FEM_NOTE),
    "ggui_examples/fem128_ggui": Setting(field_atol=_FEM_PHI, note=_FEM_NOTE),
    "simulation/mpm_lagrangian_forces": Setting(
        field_atol=(("C", 5e-3),),
        note="C = 4 inv_dx Σ w g_v⊗dpos multiplies grid-velocity differences by 256, and "
        "P2G's atomic adds sum in thread order: Taichi's own two runs differ by 1.5e-3 in C",
    ),
    "simulation/ad_gravity": Setting(
        mode="exact",
        rewrites=(
            (
                "x[i] = [ti.random(), ti.random()]",
                "x[i] = [0.15 + 0.1 * i, 0.5 + 0.3 * ti.sin(2.0 * i)]",
            ),
        ),
        note="starting positions fixed instead of drawn (the generators differ), so the "
        "gradient's trajectories are compared exactly",
    ),
    "autodiff/diff_sph/diff_sph": Setting(
        rewrites=(
            (
                "random_seed=5)",
                "random_seed=5, check_out_of_bound=False)",
            ),
        ),
        note="bounds checks off, as in Taichi's run: the first layer's output is 16 wide "
        "and its loop writes 32 (Linear._forward, line 113)",
    ),
    "machine_learning/differential_evolution": Setting(
        rewrites=(("ti.init(arch=ti.cpu)", "ti.init(arch=ti.cpu, check_out_of_bound=False)"),),
        stat_tol=0.2,
        # converged near the optimum (0, 0): compared to within 0.2 of these scales
        field_atol=(("pop", 0.1), ("trial", 0.1), ("best_pop", 0.1), ("fit", 0.01)),
        note="bounds checks off, as in Taichi's run: clip_only loops over trial (20 wide) "
        "and reads lb[j], ub[j] of 2 (line 28; Taichi with debug=True stops there too). "
        "Mutations are drawn: Taichi's own runs with random_seed 0-5 give all_pop std "
        "13.2-15.5 and a final pop std of 6e-4-7e-3, so stds agree within 20% and the "
        "converged pop, trial and fit only to within 0.02, 0.02 and 2e-3 of the optimum",
    ),
    "simulation/eulerfluid2d": Setting(
        rewrites=(("ti.init(arch=ti.gpu)", "ti.init(arch=ti.gpu, check_out_of_bound=False)"),),
        note="bounds checks off, as in Taichi's run: curl, divergence, pressure_iteration and "
        "vorticity_projection read one cell past every edge (vf[i + 1, j]..., lines 106, "
        "114, 128, 134; Taichi's run sometimes dies of it, SIGSEGV); the boundary kernels "
        "then overwrite the edge cells, so the fields still agree",
    ),
    "simulation/game_of_life": Setting(
        mode="exact",
        rewrites=(("if ti.random() > 0.8:", "if (i * 37 + j * 91 + i * j * 17) % 100 < 20:"),),
        note="starting cells fixed (20% alive by a hash of i, j) instead of drawn, so the "
        "integer rules are compared exactly; drawn, the alive fraction after 5 steps is "
        "0.125-0.165 over Taichi's own random seeds 0-2 (ti.random()'s distribution "
        "matches Taichi's)",
    ),
    "simulation/comet": Setting(
        mode="exact",
        rewrites=(
            ("a = ti.random() * 2 * math.pi", "a = count[None] * 0.618034 % 1.0 * 2 * math.pi"),
            ("s = ti.random() * 2 - 1", "s = count[None] * 0.414214 % 1.0 * 2 - 1"),
            ("inv_m[xi] = 0.5 + ti.random()", "inv_m[xi] = 0.5 + xi * 0.7071 % 1.0"),
        ),
        note="tail particles' directions and masses fixed (from the particle count) "
        "instead of drawn, so the orbit is compared exactly: one particle a frame is born "
        "in 5 frames, whose 5 drawn masses made inv_m's mean meaningless",
    ),
    "simulation/mpm88": Setting(
        mode="exact",
        rewrites=(
            (
                "x[i] = [ti.random() * 0.4 + 0.2, ti.random() * 0.4 + 0.2]",
                "x[i] = [i % 91 / 91 * 0.4 + 0.2, i // 91 / 91 * 0.4 + 0.2]",
            ),
        ),
        field_atol=(("C", 1e-3),),
        note="particles start on a lattice instead of at drawn positions, so they are "
        "compared exactly; the block falls freely in these 5 frames, so C (grid-velocity "
        "differences times 4/dx²) is the rounding of P2G's atomic adds, which sum in thread "
        "order: |C| ≤ 6.6e-4 and Taichi's own two runs differ by 3.7e-4 in C",
    ),
    "simulation/karman_vortex_street": Setting(
        # one step of a 256-entry colormap (at most 0.953 / 64 between its colours)
        field_atol=(("solve:vor_img", 0.02), ("solve:vel_img", 0.02), ("solve:img", 0.02)),
        note="the LBM fields agree; matplotlib's 256-bin colormaps split at vor = 0, where "
        "the still fluid's vor (|vor| < 3e-7) sits, so last-bit differences of vel "
        "(≤ 8e-7) flip 6% of vor_img's pixels between the two middle bins (0.006 apart)",
    ),
    "simulation/snow_phaseField": Setting(
        rewrites=(("default_fp=ti.f64)", "default_fp=ti.f64, fast_math=False)"),),
        note="fast_math=False on both sides: the crystal's centre has a zero gradient up to "
        "rounding, and epsilon there is cos(6 atan2(gy, gx)) of that rounding, so fast "
        "math's last bits move phi there by 0.02 (Taichi against itself with and without "
        "it); without it the runs agree bit for bit",
    ),
    "simulation/implicit_fem": Setting(
        field_atol=(("F_r0", 1e-5), ("F_p0", 1e-4), ("F_mul_ans", 1e-3)),
        note="CG's last residual r, direction p and A·p are what is left below f32 rounding "
        "of b - A·v (|b| ≈ 13, ulp 1e-6; |r| ≤ 4e-7): matmul_cell's atomic adds sum in "
        "thread order, so ti_notebook's own runs differ by 9e-7, 7e-6 and 1.8e-4 there; "
        "F_x and F_v agree to 1e-7 and 6e-6",
    ),
    "graph/mpm88_graph": Setting(
        mode="stat",
        rewrites=(
            (
                "x[i] = [ti.random() * 0.4 + 0.2, ti.random() * 0.4 + 0.2]",
                "x[i] = [i % 91 / 91 * 0.4 + 0.2, i // 91 / 91 * 0.4 + 0.2]",
            ),
        ),
        note="particles start on a lattice instead of at drawn positions (Taichi's draws "
        "follow its thread schedule, and F_C's std moved 13.5-15.2 by draw); compared by "
        "mean and std: after the splash (2500 steps) Taichi's own two runs from one start "
        "differ by 0.09 in x and 275 in C (P2G's atomic adds sum in thread order), while "
        "their means and stds agree to 0.3%",
    ),
    "simulation/odop_solar": Setting(
        mode="exact",
        rewrites=(
            (
                "offset = self.random_vector(0.5)",
                "offset = (0.05 + 0.45 * (i * 0.618034 % 1.0)) * ti.Vector([ti.cos(i * 2.4), "
                "ti.sin(i * 2.4)])",
            ),
            (
                "self.v[i] += self.random_vector(0.02)",
                "self.v[i] += 0.02 * (i * 0.414214 % 1.0) * ti.Vector([ti.cos(i * 1.7), "
                "ti.sin(i * 1.7)])",
            ),
        ),
        note="the 8 planets' offsets and velocity noise fixed instead of drawn, so orbits are "
        "compared exactly: v = 1/r^1.5 makes 8 drawn planets' v heavy-tailed, and Taichi's "
        "draws follow its thread schedule (its own runs gave v mean 0.16 and 5.5)",
    ),
    "simulation/initial_value_problem": Setting(note="time.time_ns() replaced by a frame clock"),
    "algorithm/mciso_advanced": Setting(
        mode="stat",
        note="triangles take their slot by ti.atomic_add: the order follows the thread "
        "schedule (Taichi's too), so the buffers are compared by mean and std",
    ),
}


def setting_for(name: str) -> Setting:
    """The example's setting (the defaults when the table has none)."""
    return SETTINGS.get(name, Setting())


def frames_for(name: str, override: int | None = None) -> int:
    """``--frames`` wins over the table, which wins over the default."""
    if override is not None:
        return override
    return setting_for(name).frames or DEFAULT_FRAMES


def timeout_for(name: str, override: float | None = None) -> float:
    """``--timeout`` wins over the table, which wins over the default."""
    if override is not None:
        return override
    return setting_for(name).timeout or DEFAULT_TIMEOUT_S
