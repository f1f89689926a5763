"""kruleset.manifests."""
