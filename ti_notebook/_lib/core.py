"""Which backends this build has, as Taichi's ``taichi._lib.core.with_*()`` answers.

Taichi asks what its native library was built with, not what the machine has:
``with_cuda()`` is True for a wheel with the CUDA backend even on a machine without a GPU
(``ti.init(arch=ti.cuda)`` then falls back to the CPU with a warning). ti_notebook always
has its CUDA backend (and that fallback); it has no Vulkan, Metal, OpenGL or DirectX
backend, so those answer False and an example's ``ti.vulkan if with_vulkan() else
ti.cuda`` picks ``ti.cuda``.

>>> with_vulkan(), with_cuda(), with_metal()
(False, True, False)
"""

from __future__ import annotations

__all__ = ["with_cuda", "with_dx11", "with_dx12", "with_gles", "with_metal", "with_opengl",
           "with_vulkan", "GGUI_AVAILABLE"]  # fmt: skip

# Taichi's flag for a build with its Vulkan GGUI; ti_notebook draws ti.ui without it, and
# examples that read the flag (implicit_fem) then take their ti.GUI path, as on a Taichi
# without Vulkan
GGUI_AVAILABLE = False


def with_cuda() -> bool:
    """True: ti_notebook has a CUDA backend (the CPU stands in without a device).

    >>> with_cuda()
    True
    """
    return True


def with_vulkan() -> bool:
    """False: ti_notebook has no Vulkan backend (``ti.ui`` draws without it).

    >>> with_vulkan()
    False
    """
    return False


def with_metal() -> bool:
    """False: no Metal backend.

    >>> with_metal()
    False
    """
    return False


def with_opengl(use_gles: bool = False) -> bool:
    """False: no OpenGL (or GLES) backend.

    >>> with_opengl()
    False
    """
    return False


def with_gles() -> bool:
    """False: no GLES backend.

    >>> with_gles()
    False
    """
    return False


def with_dx11() -> bool:
    """False: no DirectX 11 backend.

    >>> with_dx11()
    False
    """
    return False


def with_dx12() -> bool:
    """False: no DirectX 12 backend.

    >>> with_dx12()
    False
    """
    return False
