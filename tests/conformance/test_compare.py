"""The comparator of ``make compat``: pass, mismatches with their reasons, statistics."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conformance import compare, settings
from tests.conformance.compare import Tolerance

pytestmark = pytest.mark.unit


def reasons(reference, candidate, tol=None, **errors):
    tol = tol or Tolerance()
    return [m.reason for m in compare.compare(reference, candidate, tol, **errors)]


def test_equal_and_close_arrays_pass():
    a = {"field/x": np.linspace(0, 1, 50, dtype=np.float32), "field/centre": [0.5, 0.5]}
    b = {"field/x": a["field/x"] * (1 + 1e-5), "field/centre": [0.5, 0.5]}
    assert reasons(a, b) == []


def test_a_difference_names_the_field_its_worst_element_and_both_values():
    reference = {"field/grid": np.zeros((3, 4))}
    candidate = {"field/grid": np.zeros((3, 4))}
    candidate["field/grid"][2, 1] = 3e-2
    candidate["field/grid"][0, 0] = 1e-2
    assert reasons(reference, candidate) == [
        "field grid differs: max |diff| 0.03 at (2, 1) (Taichi 0, ti_notebook 0.03); "
        "2 of 12 elements off"
    ]


def test_tolerances_are_relative_to_taichi_and_can_be_widened():
    reference, candidate = {"field/x": np.array([100.0])}, {"field/x": np.array([100.05])}
    assert reasons(reference, candidate) == []  # 5e-4 relative, within rtol=1e-3
    candidate = {"field/x": np.array([100.5])}
    assert len(reasons(reference, candidate)) == 1
    assert reasons(reference, candidate, Tolerance(rtol=1e-2)) == []


def test_outliers_allow_a_fraction_of_elements_off():
    reference = {"field/img": np.zeros(1000)}
    candidate = {"field/img": np.zeros(1000)}
    candidate["field/img"][:3] = 1.0
    assert len(reasons(reference, candidate)) == 1
    assert reasons(reference, candidate, Tolerance(outliers=0.005)) == []
    assert len(reasons(reference, candidate, Tolerance(outliers=0.002))) == 1


def test_nan_matches_nan_but_not_a_number():
    reference = {"field/x": np.array([np.nan, 1.0])}
    assert reasons(reference, {"field/x": np.array([np.nan, 1.0])}) == []
    (reason,) = reasons(reference, {"field/x": np.array([0.0, 1.0])})
    assert reason.startswith("field x differs: max |diff| inf at (0,)")


def test_a_field_only_one_run_has_is_a_mismatch_with_its_name():
    assert reasons({"field/solver.x": np.zeros(2)}, {}) == ["field solver.x only in Taichi's run"]
    assert reasons({}, {"field/begin": np.zeros(2)}) == ["field begin only in ti_notebook's run"]


def test_a_field_one_backend_could_not_read_says_why():
    errors = {"candidate_errors": {"x": "to_numpy failed: TypeError: no"}}
    assert reasons({"field/x": np.zeros(2)}, {}, **errors) == [
        "field x: to_numpy failed: TypeError: no in ti_notebook"
    ]


def test_shapes_and_texts_are_compared():
    assert reasons({"field/x": np.zeros((4, 2))}, {"field/x": np.zeros(4)}) == [
        "field x has shape (4, 2) in Taichi, (4,) in ti_notebook"
    ]
    text = {"field/label": np.array("12")}
    assert reasons(text, {"field/label": np.array("12")}) == []
    assert len(reasons(text, {"field/label": np.array("13")})) == 1


def test_integer_and_boolean_arrays_compare_by_value():
    assert reasons({"field/n": np.array([1, 2], np.int32)}, {"field/n": np.array([1, 2])}) == []
    assert len(reasons({"field/alive": np.array([True])}, {"field/alive": np.array([False])})) == 1


def test_statistical_mode_accepts_other_random_draws_of_the_same_distribution():
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(2)
    reference = {"field/x": rng_a.random((200, 2))}
    candidate = {"field/x": rng_b.random((200, 2))}
    stat = Tolerance(mode="stat")
    assert len(reasons(reference, candidate)) == 1  # elementwise they differ
    assert reasons(reference, candidate, stat) == []


def test_statistical_mode_reports_a_shifted_distribution():
    rng = np.random.default_rng(3)
    reference = {"field/x": rng.random(1000)}
    (reason,) = reasons(reference, {"field/x": rng.random(1000) + 0.2}, Tolerance(mode="stat"))
    assert reason.startswith("field x differs statistically: mean 0.494 vs 0.695, std 0.286")
    (reason,) = reasons(
        {"field/x": np.array([1.0, np.inf])}, {"field/x": np.array([1.0, 2.0])}, Tolerance("stat")
    )
    assert reason == "field x: 1 non-finite values in Taichi, 0 in ti_notebook"


def test_run_mode_compares_nothing():
    assert reasons({"field/x": np.zeros(2)}, {}, Tolerance(mode="run")) == []


def test_the_tolerance_follows_the_source_and_the_settings(monkeypatch):
    assert compare.tolerance_for("a", "x[i] = ti.random()").mode == "stat"
    assert compare.tolerance_for("a", "x[i] = ti.randn(float)").mode == "stat"
    assert compare.tolerance_for("a", "x = np.random.rand(3)").mode == "exact"
    monkeypatch.setitem(
        settings.SETTINGS, "a", settings.Setting(mode="exact", rtol=0.1, outliers=0.01)
    )
    tol = compare.tolerance_for("a", "x[i] = ti.random()")
    assert (tol.mode, tol.rtol, tol.atol, tol.outliers) == ("exact", 0.1, 1e-4, 0.01)
    monkeypatch.setitem(settings.SETTINGS, "b", settings.Setting(mode="approximately"))
    with pytest.raises(ValueError, match="mode must be one of"):
        compare.tolerance_for("b", "")


def test_summarize_gives_the_first_reason_and_a_count():
    mismatches = compare.compare({"field/a": [1.0], "field/b": [2.0]}, {}, Tolerance())
    assert compare.summarize(mismatches) == "field a only in Taichi's run (+1 more)"
    assert compare.summarize([]) == ""


def test_statistical_mode_allows_a_small_samples_standard_errors():
    reference = {"field/e": np.random.default_rng(5).normal(size=32)}
    candidate = {"field/e": np.random.default_rng(6).normal(size=32)}
    assert abs(reference["field/e"].std() - candidate["field/e"].std()) > 0.05  # 5% rule fails
    assert reasons(reference, candidate, Tolerance(mode="stat")) == []
    (reason,) = reasons(reference, {"field/e": candidate["field/e"] + 2}, Tolerance(mode="stat"))
    assert reason.startswith("field e differs statistically")
