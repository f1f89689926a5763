"""Score plugins (rule set ``scheduler.score``): one module per upstream plugin, named after it.

``noderesourcesfit``, ``noderesourcesbalancedallocation``,
``tainttoleration``, ``nodeaffinity``, ``podtopologyspread``,
``interpodaffinity``, ``imagelocality``; ``normalize`` (upstream's default
normalisation) and ``resource_pairs`` (what both resource scores read) are
helpers they share.
"""
