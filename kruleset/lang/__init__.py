"""kruleset.lang."""
