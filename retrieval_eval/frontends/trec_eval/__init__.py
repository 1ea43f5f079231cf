"""The trec_eval 10 front end: its ``-m`` names resolved, a run scored by an Evaluator, its output bytes."""
