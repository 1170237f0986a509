"""User-facing language objects: types, fields, kernels."""
