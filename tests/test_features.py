"""Runs every `.feature` file under features/ with the shipped step library."""

from pathlib import Path

from pytest_bdd import scenarios

scenarios(str(Path(__file__).resolve().parent.parent / "features"))
