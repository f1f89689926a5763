"""PreEnqueue plugins (rule set ``scheduler.preenqueue``), named after their upstream plugin.

``schedulinggates``; DynamicResources' PreEnqueue is with the rest of that
plugin in :mod:`kruleset.rules.dra.dynamicresources`.
"""
