"""Compiler passes over the IR, one per file; pipeline.py lists their order, ordering.py
the rules that order keeps (checked at import), analysis/ the analyses they use."""
