"""Filter plugins (rule set ``scheduler.filter``): one module per upstream plugin, named after it.

``nodeunschedulable``, ``nodename``, ``tainttoleration``, ``nodeaffinity``
(with its PreFilter), ``nodeports``, ``noderesourcesfit``,
``podtopologyspread``, ``interpodaffinity``; ``topology_index`` is the pod
index the last two share.
"""
