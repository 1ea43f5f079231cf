"""The sweeps and the rendered report the report's tests share (each built once: plots cost a second a page)."""

from __future__ import annotations

import pytest

from retrieval_eval.report import write_report

from .sweeps import fusion_sweep, grid_sweep, inversion_sweep


@pytest.fixture(scope="session")
def grid():
    return grid_sweep()


@pytest.fixture(scope="session")
def fusion():
    return fusion_sweep()


@pytest.fixture(scope="session")
def inverted():
    return inversion_sweep()


@pytest.fixture(scope="session")
def grid_report(grid, tmp_path_factory):
    """The grid sweep's HTML report with its plots, as a file, under a title to be escaped."""
    pytest.importorskip("matplotlib")
    path = tmp_path_factory.mktemp("report") / "report.html"
    write_report(grid, path, title="Top-k & chunk <sweep>")
    return path
