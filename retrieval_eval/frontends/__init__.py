"""Front ends that print what a reference tool prints, byte for byte: trec_eval 10, gdeval.pl 1.3, ndeval 4.5, cwl_eval 1.0.12."""
