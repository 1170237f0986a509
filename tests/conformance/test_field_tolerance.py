"""Per-field absolute tolerances of ``make compat`` and the settings of the autodiff
examples that use them (their source rules are lifted: they run)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conformance import compare, settings
from tests.conformance.compare import Tolerance

pytestmark = pytest.mark.unit


def test_a_field_atol_applies_to_that_field_only():
    reference = {"field/phi": np.array([1e-4, -2e-4]), "field/pos": np.array([0.5, 0.5])}
    candidate = {"field/phi": np.array([2e-3, 1e-3]), "field/pos": np.array([0.5, 0.51])}
    tol = Tolerance(field_atol=(("phi", 4e-3),))
    found = compare.compare(reference, candidate, tol)
    assert [m.key for m in found] == ["field/pos"]  # pos keeps the default atol
    assert [m.key for m in compare.compare(reference, candidate, Tolerance())] == [
        "field/phi",
        "field/pos",
    ]


def test_the_setting_reaches_the_tolerance(monkeypatch):
    monkeypatch.setitem(
        settings.SETTINGS, "a", settings.Setting(field_atol=(("C", 5e-3),), rtol=0.01)
    )
    tol = compare.tolerance_for("a", "")
    assert (tol.field_atol, tol.rtol, tol.atol) == ((("C", 5e-3),), 0.01, settings.DEFAULT_ATOL)


@pytest.mark.parametrize(
    ("name", "field", "atol"),
    [
        ("simulation/fem99", "phi", 4e-3),
        ("simulation/fem128", "phi", 4e-3),
        ("ggui_examples/fem128_ggui", "phi", 4e-3),
        ("simulation/mpm_lagrangian_forces", "C", 5e-3),
    ],
)
def test_autodiff_examples_widen_only_their_cancelling_field(name, field, atol):
    setting = settings.setting_for(name)
    assert setting.field_atol == ((field, atol),) and setting.note
    assert setting.atol is None and setting.rtol is None and setting.mode is None


def test_ad_gravity_starts_from_fixed_positions_and_compares_exactly():
    setting = settings.setting_for("simulation/ad_gravity")
    assert setting.mode == "exact"
    ((old, new),) = setting.rewrites
    assert "ti.random" in old and "ti.random" not in new and "\n" not in new
