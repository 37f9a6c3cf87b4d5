"""Recall: ranking topics and facts for a message with a sense of time, deep-search triggers,
and time travel through git history."""
