"""``@ti.data_oriented``: classes whose methods are kernels and ti.funcs.

A kernel defined in a class body takes the instance as its first parameter, ``self``,
which is a ``ti.template()``: its attributes (fields, numbers, lists of fields, other
data-oriented objects) are read while compiling, and each instance gets its own
compiled specialisation, as in Taichi. Like any template value, an attribute is read
again only when the kernel compiles again: assign new values to fields, not to the
attributes a kernel already read (or make a new instance).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.data_oriented
    ... class Counter:
    ...     def __init__(self, n, step):
    ...         self.step = step
    ...         self.x = ti.field(ti.i32, shape=n)
    ...
    ...     @ti.func
    ...     def next_value(self, i):
    ...         return self.x[i] + self.step
    ...
    ...     @ti.kernel
    ...     def advance(self):
    ...         for i in self.x:
    ...             self.x[i] = self.next_value(i)
    >>> a, b = Counter(3, 1), Counter(2, 10)
    >>> a.advance(); a.advance(); b.advance()
    >>> a.x.to_numpy().tolist(), b.x.to_numpy().tolist()
    ([2, 2, 2], [10, 10])

Methods reach each other as in Python: ``self.step()`` from Python launches a kernel,
``self.helper(i)`` in a kernel inlines a ti.func (``@staticmethod`` ones take no
``self``); properties and inheritance work as Python makes them.
"""

from __future__ import annotations

from ti_notebook.errors import TiSyntaxError, TiTypeError

__all__ = ["BoundKernel", "data_oriented", "defined_in_class", "is_data_oriented"]


def data_oriented(cls: type) -> type:
    """Marks ``cls`` so that its kernels bind their instance (see the module docstring).

    >>> @data_oriented
    ... class Solver:
    ...     pass
    >>> is_data_oriented(Solver())
    True
    """
    if not isinstance(cls, type):
        raise TiTypeError(
            f"@ti.data_oriented decorates a class, not {type(cls).__name__} {cls!r}",
            hint="put @ti.data_oriented above 'class Name:'",
        )
    cls._data_oriented = True
    return cls


def is_data_oriented(value) -> bool:
    """Whether ``value`` is an instance of a ``@ti.data_oriented`` class (or a subclass)."""
    return not isinstance(value, type) and bool(getattr(type(value), "_data_oriented", False))


def defined_in_class(function) -> bool:
    """Whether a function was defined in a class body: its qualified name's last scope
    is a class, not a function's ``<locals>`` (Taichi looks at the decorator's stack
    frame for the same answer).

    >>> class Shape:
    ...     def area(self):
    ...         pass
    >>> def free():
    ...     pass
    >>> defined_in_class(Shape.area), defined_in_class(free)
    (True, False)
    """
    parts = getattr(function, "__qualname__", "").split(".")
    return len(parts) >= 2 and parts[-2] != "<locals>"


def check_bindable(kernel_name: str, instance) -> None:
    """A kernel method read from an instance of a class that is not data-oriented."""
    if not is_data_oriented(instance):
        cls = type(instance).__name__
        raise TiSyntaxError(
            f"kernel '{kernel_name}' is a method of class '{cls}', which is not "
            "decorated with @ti.data_oriented",
            hint=f"put @ti.data_oriented above 'class {cls}:'",
        )


class BoundKernel:
    """``obj.kernel``: the kernel with ``obj`` as its ``self`` argument.

    Calling it launches the kernel; ``stages``/``report`` describe the instance's own
    specialisation; every other attribute is the kernel's (``configure``, ``name``...).
    Calling one of a class that is not ``@ti.data_oriented`` is an error (reading it is
    not, so ``hasattr`` and tab completion keep working), as in Taichi.
    """

    __slots__ = ("kernel", "instance")

    def __init__(self, kernel, instance) -> None:
        self.kernel = kernel
        self.instance = instance

    def __call__(self, *args, **kwargs):
        __tracebackhide__ = True
        check_bindable(self.kernel.name, self.instance)
        return self.kernel(self.instance, *args, **kwargs)

    def stages(self, *args, **kwargs):
        """The kernel's stages for this instance (and ``args``, when it has more
        parameters)."""
        check_bindable(self.kernel.name, self.instance)
        return self.kernel.stages(self.instance, *args, **kwargs)

    @property
    def report(self):
        """The compiler's report of this instance's specialisation."""
        return self.stages()["report"]

    @property
    def grad(self) -> BoundKernel:
        """The kernel's grad kernel, bound to the same instance."""
        return BoundKernel(self.kernel.grad, self.instance)

    def __getattr__(self, name: str):
        return getattr(self.kernel, name)

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, BoundKernel)
            and other.kernel is self.kernel
            and other.instance is self.instance
        )

    def __hash__(self) -> int:
        return hash((id(self.kernel), id(self.instance)))

    def __repr__(self) -> str:
        return f"<bound ti.kernel {type(self.instance).__name__}.{self.kernel.name}>"
