"""Every renderer: what the terminal shows of an evaluation (:mod:`.evaluation_text`), a sweep
(:mod:`.sweep_text`, and its JSON) and an explanation (:mod:`.explain_text`); the explorer page of an
explanation (:mod:`.explorer_page`, its JS and CSS the files of ``assets/``); tables of a sweep
(Markdown, LaTeX, HTML), plots (matplotlib, optional), a self-contained HTML page of a sweep and its
Markdown twin. They build on the formatting primitives of :mod:`retrieval_eval.views` (which also holds
the short views of every result, ``__repr__`` and ``_repr_html_``).
"""

from .._lazy import lazy_attributes

_EXPORTS = {
    "explorer_html": ".explorer_page",
    "query_report": ".explain_text",
    "summary_report": ".explain_text",
    "sweep_json": ".sweep_text",
    "sweep_text": ".sweep_text",
    "write_explorer": ".explorer_page",
    "html_report": ".html",
    "markdown_report": ".markdown",
    "write_report": ".html",
    "to_html": ".tables",
    "to_latex": ".tables",
    "to_markdown": ".tables",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
