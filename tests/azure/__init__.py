"""Tests of the azure-ai-evaluation drop-ins (the judged ones; the deterministic ones are in tests/test_azure*.py)."""
