"""Fast paths of the scheduler: caches and batch plans that decide as the reference rules.

Nothing on the reference path imports these modules to decide; each is
differential-tested against the rules it shortcuts (same decisions, same trace).
"""
