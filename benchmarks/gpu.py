"""GPU figures (not a test): ti_notebook beside Taichi 1.7.4's CUDA backend.

The rows (``gpu_check/workloads.py``): an 8M f32 sum (as a share of the device's memory
bandwidth, from its attributes), saxpy, a 2-D 5-point stencil, the MPM P2G
``block_dim`` table, launch latency, and the seeds' block-local-storage stencil with and
without ``ti.block_local``. Each peer runs in its own subprocess (``ti.init(arch=ti.cuda)``
there), so the two runtimes never share a process; both time by ti_notebook's one
protocol (``ti_notebook/measure/protocol.py``, loaded by path in the Taichi process, so it
loads no second compiler): first call apart and checked against NumPy, then the median
of interleaved samples with a sync. Each row is also timed on the device by CUDA events
(the kernel profiler, in a second session). A failing row is recorded with its traceback
and the others go on; a peer process that dies is restarted for the groups it had left.

Without a GPU (or with ``--fake``) ti_notebook runs on the fake device (the device
backend on a stand-in driver whose kernels run on the SIMT emulator,
``tests/cuda/fake_device.py``) and Taichi where its CUDA request falls back, at small
sizes: that checks every kernel and the whole pipeline, and gives no GPU figures.
``make gpu-check`` runs this after the CUDA test tier and writes one report.

    python benchmarks/gpu.py                        # both peers, markdown to stdout
    python benchmarks/gpu.py --fake --groups sum,bls --json /tmp/gpu.json
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `benchmarks` as a package

from benchmarks.gpu_check.bench import main  # noqa: E402  (after the path above)

if __name__ == "__main__":
    sys.exit(main())
