"""Compiler passes over the IR, one per file; pipeline.py lists their order."""
