"""kruleset.bdd."""
