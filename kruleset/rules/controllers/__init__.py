"""Workload controllers' decisions as rules, one module per upstream controller."""
