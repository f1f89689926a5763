"""Voluntary and taint-based disruption: the Eviction API, PDB status, the taint manager."""
