"""Scheduler preemption: PostFilter, DefaultPreemption, victim selection and the pick."""
