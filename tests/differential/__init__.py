"""Differential tests: kruleset against the real kube-scheduler v1.35 (the oracle).

``generator`` draws random clusters by feature group, ``oracle`` runs
``../shared/oracle/bin/kr-oracle`` (or ``$KRULESET_ORACLE``), ``kr_side``
runs kruleset on the same cluster, ``compare`` lines the two up attempt by
attempt and names each disagreement's class, ``shrink`` makes a disagreement
small.  ``scripts/differential.py`` drives them at scale.
"""
