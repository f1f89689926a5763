"""kruleset.sim."""
