"""The QueueSort plugin (rule set ``scheduler.queue``), in the module named after it.

``prioritysort``: PrioritySort, the only QueueSort plugin of the default profile.
"""
