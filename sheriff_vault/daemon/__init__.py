"""The watch daemon (keeps the index fresh, holds the model), its socket protocol, the post-commit
hook's work, and the client facade every caller uses: the daemon when one runs, else this process."""
