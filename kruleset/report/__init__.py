"""kruleset.report."""
