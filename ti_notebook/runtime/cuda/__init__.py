"""Running kernels on a CUDA device through cuda-python: the driver and its errors,
device copies of field memory, and the launcher (``ti.init(arch=ti.cuda)`` with a
device; the SIMT emulator's launcher is ``runtime/simt/launch.py``)."""
