"""The ``cuda_sim`` tier, which is also the ``cuda`` tier: the CUDA backend's code run on
the SIMT emulator (or on a real device), compared with the CPU backend and NumPy.

Every test takes the ``gpu`` fixture, parametrised over the GPU-like archs:

- ``cuda_sim`` (marker ``cuda_sim``): ``ti.init(arch=ti.cuda, cuda_sim=True)``, always;
- ``fake_device`` (marker ``cuda_sim``): the device backend and its runtime
  (``runtime/cuda/launch.py``: device memory, uploads, downloads, launches) on the fake
  driver of ``tests/cuda/fake_device.py``, whose kernels run on the emulator, always;
- ``cuda`` (marker ``cuda``): ``ti.init(arch=ti.cuda)`` on a device, skipped with the
  driver's own reason where that would fall back to the CPU.

So ``pytest -m cuda_sim tests/cuda_sim`` runs the emulator's tier, ``-m cuda`` the same
test bodies on a GPU. A test builds its fields and kernels in a function and runs it on
each arch with ``gpu.against_cpu(build)``; every session is a fresh ``ti.init``.
``TI_ARCH``/``TI_CUDA_SIM`` are ignored here (each test picks its archs itself), so
``make test-sim``'s environment does not turn the CPU reference into the emulator.

The emulator runs one OS thread per CUDA thread: fields stay small, grids short. A
kernel that never ends (an endless loop that still writes memory is not a stall the
emulator reports) ends the run after :data:`HANG_SECONDS` with every thread's
traceback, instead of hanging it.
"""

from __future__ import annotations

import faulthandler
import importlib.util
import sys
from pathlib import Path

import pytest
from sim_compare import GPU_ARCHS, GpuArch

from ti_notebook.runtime import devices
from ti_notebook.session import config as config_module

FAKE_DEVICE = Path(__file__).resolve().parent.parent / "cuda" / "fake_device.py"
HANG_SECONDS = 300  # a test of this tier takes about a second


@pytest.fixture(autouse=True)
def _no_endless_test():
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True, file=sys.__stderr__)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(params=GPU_ARCHS)
def gpu(request, monkeypatch) -> GpuArch:
    """The GPU-like arch under test (see the module's docstring)."""
    monkeypatch.delenv("TI_ARCH", raising=False)
    monkeypatch.delenv("TI_CUDA_SIM", raising=False)
    if request.param == "cuda":
        reason = _cuda_fallback_reason()
        if reason is not None:
            pytest.skip(reason)
    if request.param == "fake_device":
        _cuda_sessions_on_the_fake_device(monkeypatch)
    return GpuArch(request.param)


def _cuda_sessions_on_the_fake_device(monkeypatch) -> None:
    """CUDA sessions compile through the device backend on a fake driver (the CPU's
    sessions, the reference, stay as they are)."""
    fake = _fake_device_module()
    backend = fake.FakeDeviceBackend(fake.FakeContext())
    original = config_module.Config.backend

    def backend_of(config):
        return backend if config.arch == "cuda" else original(config)

    monkeypatch.setattr(config_module.Config, "backend", backend_of)


def _fake_device_module():
    """``tests/cuda/fake_device.py``, one module for the process: its PTX -> IR table is
    shared by every fake (an offline-cache hit loads PTX another test compiled)."""
    module = sys.modules.get("fake_device")
    if module is None:
        spec = importlib.util.spec_from_file_location("fake_device", FAKE_DEVICE)
        module = importlib.util.module_from_spec(spec)
        sys.modules["fake_device"] = module
        spec.loader.exec_module(module)
    return module


def _cuda_fallback_reason() -> str | None:
    """Why ``ti.init(arch=ti.cuda)`` would fall back to the CPU here (the driver's own
    words), or None when a CUDA device is there."""
    return devices.cuda_unavailable_reason()


@pytest.fixture
def sim(monkeypatch) -> GpuArch:
    """The emulator alone, for tests of what only it can show (barriers removed)."""
    monkeypatch.delenv("TI_ARCH", raising=False)
    monkeypatch.delenv("TI_CUDA_SIM", raising=False)
    return GpuArch("cuda_sim")
