"""The metric families, by name: the registry and the evaluator find each metric's family here.

A family added since the families moved here is a module (or a folder) of this package; the
older ones still live beside it in ``metrics/``.
"""

from __future__ import annotations

from ..family import Family
from .cwl import CWL
from .diversity import DIVERSITY
from .document_retrieval import DOCUMENT_RETRIEVAL
from .gdeval import GDEVAL
from .ir_measures_extras import ACCURACY, COMPAT
from .judgment_groups import JUDGMENT_GROUPS
from .prefs import PREFS
from .ranked_gains import RANKED_GAINS
from .trec import TREC

FAMILIES: dict[str, Family] = {
    family.name: family
    for family in (
        DOCUMENT_RETRIEVAL,
        TREC,
        JUDGMENT_GROUPS,
        PREFS,
        GDEVAL,
        DIVERSITY,
        CWL,
        RANKED_GAINS,
        COMPAT,
        ACCURACY,
    )
}
