"""The kubelet's eviction manager: signals, thresholds, ranking, the pass, OOM scores."""
