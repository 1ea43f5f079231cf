"""The column-wise engine: RetrievalQuery, RetrievalResult, KeywordMatch and ToolUse over every record of an
execution log at once, on Arrow columns (:mod:`.engine`), with the log's tables and its check run."""
