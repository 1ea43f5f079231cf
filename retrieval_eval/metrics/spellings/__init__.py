"""Metric names as other tools spell them: trec_eval's table, ir_measures', ranx's, and the peers' objects."""
