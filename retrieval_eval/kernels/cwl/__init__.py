"""Kernels of the C/W/L framework (cwl_eval 1.0.12): continuation vectors and the five expectations."""
