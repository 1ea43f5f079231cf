"""Rank fusion as ranx defines it: runs aligned by document, scores normalized, fused, voted or trained."""
