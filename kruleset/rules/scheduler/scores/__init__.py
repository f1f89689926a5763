"""Score plugins (rule set ``scheduler.score``), named after their upstream plugin."""
