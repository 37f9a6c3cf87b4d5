"""The files are the truth: the vault on disk, topic files, conversation turns, wake packets,
skills, git, locks, atomic writes and the change journal. Imports nothing above it."""
