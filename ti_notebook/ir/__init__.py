"""IR nodes, printer and transforms."""
