"""The device table is the one source of device facts, and the launch table's records
survive the forms they travel in (the report's mappings, the offline cache's JSON)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from ti_notebook.compiler.backends.cuda_sim import simt_cuda_device
from ti_notebook.cuda_analysis import DEVICES as ANALYSIS_DEVICES
from ti_notebook.errors import TiValueError
from ti_notebook.ir.devices import DEFAULT_ARCH, DEVICES, CudaDevice
from ti_notebook.ir.launch_abi import HELPER_KINDS, TASK_KINDS, Launch
from ti_notebook.runtime.simt import SIMT_DEVICE
from ti_notebook.runtime.simt.device import check_launch


@pytest.mark.parametrize("arch", sorted(DEVICES))
def test_codegen_view_of_each_arch_is_its_row(arch):
    row, view = DEVICES[arch], CudaDevice.for_capability(arch)
    assert (view.compute_capability, view.multiprocessors) == (arch, row.sm_count)
    assert view.threads_per_multiprocessor == row.max_threads_per_sm
    assert view.blocks_per_multiprocessor == row.max_blocks_per_sm
    assert view.shared_memory_per_block == row.shared_bytes_per_block
    assert view.shared_memory_opt_in == row.shared_bytes_per_block_optin
    assert view.threads == row.max_resident_threads


def test_the_analysis_and_the_default_device_read_the_same_table():
    assert ANALYSIS_DEVICES is DEVICES
    assert CudaDevice() == CudaDevice.of(DEVICES[DEFAULT_ARCH])
    # an arch without a row: the default's figures under the name asked for
    assert CudaDevice.for_capability("sm_75") == CudaDevice.of(DEVICES[DEFAULT_ARCH], "sm_75")


def test_the_emulated_device_is_sm80s_row_with_two_sms():
    assert dataclasses.replace(SIMT_DEVICE, name="A100", sm_count=108) == DEVICES["sm_80"]
    compiled_for = simt_cuda_device()
    assert compiled_for.compute_capability == "sm_80" and compiled_for.multiprocessors == 2
    assert compiled_for.shared_memory_opt_in == DEVICES["sm_80"].shared_bytes_per_block_optin
    # what an A100 refuses, the emulator refuses: one byte past the opt-in maximum
    limit = SIMT_DEVICE.shared_bytes_per_block_optin
    check_launch("k", (1, 1, 1), (32, 1, 1), dynamic_shared=limit)
    with pytest.raises(TiValueError, match="over the limit"):
        check_launch("k", (1, 1, 1), (32, 1, 1), dynamic_shared=limit + 1)


def test_a_launch_survives_the_report_and_the_cache():
    entry = Launch("k_task1", "struct_for", 64, 4096, 64, block_list=True, checks_errors=True)
    assert Launch.from_dict(json.loads(json.dumps(entry.as_dict()))) == entry
    # what a device backend adds is kept, and left out of the plain table
    stated = dataclasses.replace(entry, written_trees=(0, 2), iterations_exact=False)
    assert Launch.from_dict(json.loads(json.dumps(stated.as_dict()))) == stated
    assert "written_trees" not in entry.as_dict() and stated.as_dict()["written_trees"] == [0, 2]
    assert entry.is_task and not Launch("k_task1_list", "list", 128).is_task
    assert not set(TASK_KINDS) & set(HELPER_KINDS)
