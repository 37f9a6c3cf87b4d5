"""Sleep: compact a conversation into topics (the offline and OpenAI extractors, matching and
merging into topic files) as one git commit with a wake packet."""
