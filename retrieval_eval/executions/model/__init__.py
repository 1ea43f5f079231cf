"""The records the checks read: the pydantic models of retrieval executions, the loader rules that build
them, and the evaluation document (its reading and its items and turns)."""
