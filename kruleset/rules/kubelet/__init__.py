"""The kubelet: pod admission, critical-pod preemption and node-pressure eviction."""
