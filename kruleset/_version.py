"""The version of kruleset (one place, read by the package and its reports)."""

__version__ = "0.1.0"
