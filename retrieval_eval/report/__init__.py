"""Reports of a sweep: tables (Markdown, LaTeX, HTML), plots (matplotlib, optional) and a self-contained HTML page."""

from .html import html_report, write_report
from .tables import to_html, to_latex, to_markdown

__all__ = ["html_report", "to_html", "to_latex", "to_markdown", "write_report"]
