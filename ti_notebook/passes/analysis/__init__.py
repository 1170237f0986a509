"""Analyses of the IR: they compute facts (value ranges, per-lane values, memory
traffic, warp accesses, task descriptions) for the passes and the report, and change
no statement."""
