"""The metric families, and the conventions of the reference each follows."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from . import document_retrieval, trec
from .document_retrieval import LabelRange

#: Each family's module: its ``DEFINITIONS``, its reference's tie order ``TIES``, the ``JOIN`` its
#: ``compute`` reads (a full ranking, or only where the judged documents rank).
FAMILIES: dict[str, ModuleType] = {document_retrieval.FAMILY: document_retrieval, trec.FAMILY: trec}


@dataclass(frozen=True)
class FamilyOptions:
    """Options of an evaluation that some family reads: each family's ``compute`` takes them all."""

    labels: LabelRange
    max_docs: int | None


@dataclass(frozen=True)
class Conventions:
    """What an evaluation does where the user did not say: the reference system's behaviour."""

    query_set: str
    duplicates: str


#: trec_eval averages over queries in both qrels and run, and refuses a repeated document.
TREC_CONVENTIONS = Conventions(query_set="both", duplicates="raise")
#: azure-ai-evaluation scores every judged query, and the last of repeated rows wins.
AZURE_CONVENTIONS = Conventions(query_set="qrels", duplicates="last")
