"""The agent side: the Responses API loop, the host tools, waking up with a context bundle, and
routing and running skills."""
