"""Kernels every evaluation runs: ids hashed and grouped, the judgment index, the joins that rank and label
each query's documents, the document-retrieval metrics, and the numpy building blocks they share."""
