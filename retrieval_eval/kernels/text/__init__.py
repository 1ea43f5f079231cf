"""Kernels over text bytes: substring and keyword search, answer tokens for F1, JSON nesting depth."""
