"""Filter plugins (rule set ``scheduler.filter``), named after their upstream plugin."""
