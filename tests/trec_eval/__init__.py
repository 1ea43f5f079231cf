"""Differential tests of ``retrieval-eval evaluate --trec`` against the real trec_eval 10 binary."""
