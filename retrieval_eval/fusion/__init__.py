"""Rank fusion: two or more runs combined into one, as ranx 0.3.21 fuses them."""
