"""Reports: tables of a sweep (Markdown, LaTeX, HTML), plots (matplotlib, optional), a self-contained
HTML page and its Markdown twin. (The short views of every result, ``__repr__`` and ``_repr_html_``, are :mod:`retrieval_eval.views`.)

"""

from .._lazy import lazy_attributes

_EXPORTS = {
    "html_report": ".html",
    "markdown_report": ".markdown",
    "write_report": ".html",
    "to_html": ".tables",
    "to_latex": ".tables",
    "to_markdown": ".tables",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
