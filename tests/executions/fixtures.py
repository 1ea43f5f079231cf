"""The example telemetry of the spec (specs/m365-retrieval-checks.md, section 5.1), used by the worked examples."""

from __future__ import annotations

GUIDEBOOK = "https://contoso.sharepoint.com/sites/Claims/Shared%20Documents/claims-guidebook.docx"
TIMELINE = "https://contoso.sharepoint.com/sites/Claims/Shared%20Documents/claims-timeline.docx"
DEFINITIONS = "https://contoso.sharepoint.com/sites/Claims/Shared%20Documents/definitions.docx"
ODSP = "OneDriveAndSharePoint"
QUERY_1 = "mortgage joint check requirement dwelling claim"
QUERY_2 = "HomeShield deductible options mortgage FileType:docx"
DEDUCTIBLES = "6.1 HomeShield. Standard Deductible Options: $500, $1,000, $2,500, $5,000 and $10,000."


def example_telemetry() -> dict:
    """A fresh copy of the section 5.1 records (tests may not share mutable state)."""
    return {
        "source": "example-fixture",
        "retrieval_executions": [
            {
                "capability": ODSP,
                "status": "success",
                "queries": [{"queryString": QUERY_1, "filterExpression": None, "maximumNumberOfResults": 25}],
                "latencyMs": 412,
                "totalResultCount": 3,
                "retrievalHits": [
                    {
                        "rank": 1,
                        "webUrl": GUIDEBOOK,
                        "extracts": [
                            {
                                "text": "8.4 Claims Payment Methods. A Mortgage Company Joint Check is required for "
                                "dwelling claims exceeding $10,000 on mortgaged properties.",
                                "relevanceScore": 0.91,
                            }
                        ],
                        "resourceMetadata": {"title": "Claims guidebook"},
                    },
                    {
                        "rank": 2,
                        "webUrl": GUIDEBOOK,
                        "extracts": [{"text": DEDUCTIBLES, "relevanceScore": 0.74}],
                        "resourceMetadata": None,
                    },
                    {
                        "rank": 3,
                        "webUrl": TIMELINE,
                        "extracts": [{"text": "8.3 Claims Timeline. Investigation — 5–15 business days.", "relevanceScore": None}],
                        "resourceMetadata": None,
                    },
                ],
                "executionId": "exec-1",
                "startedAt": "2026-08-01T09:30:00.120Z",
            },
            {
                "capability": ODSP,
                "status": "success",
                "queries": [
                    {
                        "queryString": QUERY_2,
                        "filterExpression": 'path:"https://contoso.sharepoint.com/sites/Claims/"',
                        "maximumNumberOfResults": 25,
                    }
                ],
                "latencyMs": 388,
                "totalResultCount": 2,
                "retrievalHits": [
                    {"rank": 1, "webUrl": GUIDEBOOK, "extracts": [{"text": DEDUCTIBLES, "relevanceScore": 0.88}], "resourceMetadata": None},
                    {
                        "rank": 2,
                        "webUrl": DEFINITIONS,
                        "extracts": [
                            {
                                "text": "Deductible: the amount the insured pays out-of-pocket before the insurer pays.",
                                "relevanceScore": 0.69,
                            }
                        ],
                        "resourceMetadata": None,
                    },
                ],
                "executionId": "exec-2",
                "startedAt": "2026-08-01T09:30:00.540Z",
            },
            {
                "capability": "Email",
                "status": "failed",
                "queries": [{"queryString": "mortgage joint check", "filterExpression": None, "maximumNumberOfResults": None}],
                "latencyMs": 1503,
                "totalResultCount": None,
                "retrievalHits": [],
                "executionId": "exec-3",
                "startedAt": "2026-08-01T09:30:00.560Z",
            },
        ],
    }
