"""A differential operator matrix: every operator and math function over every pair of
scalar types, with constant, argument and field-element operands, checked against exact
arithmetic and (when it is installed) against Taichi 1.7.4."""
