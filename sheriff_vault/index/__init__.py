"""The search cache in .vault/: vault files as documents, a Tantivy BM25 index, the embedding
model and the vector cache. Rebuildable from the files at any time."""
