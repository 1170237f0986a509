"""Structs and compound arguments on the GPU: vector/matrix/struct kernel arguments
flattened into scalar slots, vector/struct/tuple returns read back from the device's
context (the return slots after the arguments), struct fields and data-oriented
kernels - each against the CPU backend and hand-computed values."""

import numpy as np
from sim_compare import assert_same

import ti_notebook as ti


def test_compound_arguments_and_returns(gpu):
    def build():
        vec3 = ti.types.vector(3, ti.f32)
        mat2 = ti.types.matrix(2, 2, ti.i32)
        Body = ti.types.struct(pos=vec3, mass=ti.f32, m=mat2)
        out = ti.field(ti.f32, shape=4)

        @ti.kernel
        def move(b: Body, v: vec3, k: ti.i32) -> tuple[Body, ti.f32, mat2]:
            moved = b
            moved.pos += v * k
            moved.mass *= 2
            for i in range(4):
                out[i] = moved.pos.x + i
            return moved, moved.pos.norm_sqr(), b.m @ b.m

        result = move(Body(pos=[1, 2, 3], mass=1.5, m=[[1, 2], [3, 4]]), [0.5, 0, -1], 2)
        moved, norm_sqr, squared = result
        return (
            np.asarray(moved.pos),
            moved.mass,
            np.asarray(moved.m),
            norm_sqr,
            np.asarray(squared),
            out.to_numpy(),
        )

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    pos, mass, m, norm_sqr, squared, out = actual
    assert_same(pos, [2, 2, 1])
    assert mass == 3.0 and norm_sqr == 9.0
    assert_same(m, [[1, 2], [3, 4]])
    assert_same(squared, [[7, 10], [15, 22]])
    assert_same(out, [2, 3, 4, 5])


def test_struct_fields_and_data_oriented_kernels(gpu):
    def build():
        Particle = ti.types.struct(pos=ti.types.vector(2, ti.f32), mass=ti.f32)

        @ti.data_oriented
        class Cloud:
            def __init__(self, n):
                self.n = n
                self.particles = Particle.field(shape=n)

            @ti.func
            def weight(self, i):
                return self.particles[i].mass * self.particles[i].pos.norm()

            @ti.kernel
            def init(self):
                for i in self.particles:
                    self.particles[i] = Particle(pos=[i, 0], mass=1)
                    self.particles[i].pos.y += 2 * i

            @ti.kernel
            def total(self) -> ti.f32:
                s = 0.0
                for i in range(self.n):
                    s += self.weight(i)
                return s

        cloud = Cloud(64)
        cloud.init()
        return cloud.particles.to_numpy(), cloud.total()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual, rtol=1e-6)
    arrays, total = actual
    assert_same(arrays["pos"], np.stack([np.arange(64), 2 * np.arange(64)], 1))
    assert abs(total - np.sqrt(5) * np.arange(64).sum()) < 1e-3 * total
