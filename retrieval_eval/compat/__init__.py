"""Drop-in interfaces of the peers (pytrec_eval, ir_measures) over retrieval_eval's core; each imports its peer only when used."""
