"""Python AST to IR."""
