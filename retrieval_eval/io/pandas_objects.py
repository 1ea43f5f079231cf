"""Recognise pandas objects without importing pandas.

Importing pandas takes longer (about 0.3 s) than reading and scoring a small file, so it is
imported only when the user works with pandas. No object can be a DataFrame or ``pd.NA``
unless pandas has been imported, so asking :data:`sys.modules` answers without importing it.
"""

from __future__ import annotations

import sys


def is_dataframe(obj: object) -> bool:
    """Whether ``obj`` is a pandas DataFrame (or a subclass)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(obj, pandas.DataFrame)


def is_pandas_missing(obj: object) -> bool:
    """Whether ``obj`` is pandas' missing-value scalar ``pd.NA`` or ``pd.NaT``."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and (obj is pandas.NA or obj is pandas.NaT)
