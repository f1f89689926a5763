"""Elastic quotas (scheduler-plugins CapacityScheduling): accounting, PreFilter, reclaim."""
