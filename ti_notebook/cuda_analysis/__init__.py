"""Static analysis of CUDA kernels, without a GPU: what ptxas reports and what follows.

- :mod:`~ti_notebook.cuda_analysis.devices`: the limits of each arch (sm_80, sm_86, sm_89,
  sm_90: the device table of :mod:`ti_notebook.ir.devices`) and published peaks;
- :mod:`~ti_notebook.cuda_analysis.occupancy`: theoretical occupancy, a port of
  ``cuda_occupancy.h``;
- :mod:`~ti_notebook.cuda_analysis.ptxas`: registers, shared memory, barriers and spills
  from ``ptxas -v``;
- :mod:`~ti_notebook.cuda_analysis.access_patterns`: sectors per warp access, bank conflicts;
- :mod:`~ti_notebook.cuda_analysis.kernel_ptx`: the PTX of a compiled kernel.

The package imports only :mod:`ti_notebook.errors` and the device table
(:mod:`ti_notebook.ir.devices`), so the compiler, the CUDA backend and the widgets can
all use it; this module is its public face (``tests/test_layering.py``
lets the notebook layer import it). It is not called ``gpu`` (nor ``cuda``): importing
``ti_notebook.gpu`` would replace the arch constant ``ti.gpu`` with the module.

    >>> from ti_notebook.cuda_analysis import shared_access, theoretical_occupancy
    >>> theoretical_occupancy("sm_90", block_size=128, registers=32).occupancy
    1.0
    >>> shared_access(stride=33 * 4).conflict_free
    True
"""

from ti_notebook.cuda_analysis.access_patterns import (
    GlobalAccess,
    SharedAccess,
    global_access,
    lane_addresses,
    shared_access,
)
from ti_notebook.cuda_analysis.devices import DEVICES, DeviceLimits, arch_name, device_limits
from ti_notebook.cuda_analysis.kernel_ptx import ptx_of
from ti_notebook.cuda_analysis.occupancy import (
    RESOURCES,
    Occupancy,
    best_block_size,
    theoretical_occupancy,
)
from ti_notebook.cuda_analysis.ptxas import (
    KernelResources,
    PtxasReport,
    find_ptxas,
    kernel_resources,
    ptx_target,
    ptxas_report,
)

__all__ = [
    "DEVICES",
    "RESOURCES",
    "DeviceLimits",
    "GlobalAccess",
    "KernelResources",
    "Occupancy",
    "PtxasReport",
    "SharedAccess",
    "arch_name",
    "best_block_size",
    "device_limits",
    "find_ptxas",
    "global_access",
    "kernel_resources",
    "lane_addresses",
    "theoretical_occupancy",
    "ptx_of",
    "ptx_target",
    "ptxas_report",
    "shared_access",
]
