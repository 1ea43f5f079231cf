"""The manual's generated reference pages are what docs/generate.py writes from the code now, and the README's links resolve."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _generator():
    """docs/generate.py as a module (docs/ is the manual's folder, not a package)."""
    spec = importlib.util.spec_from_file_location("docs_generate", REPO / "docs" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_generated_page_is_current():
    # A stale page: run `python docs/generate.py` and commit the pages it rewrites.
    assert _generator().stale_pages() == []


def test_check_exits_1_naming_a_stale_page(tmp_path, monkeypatch, capsys):
    generator = _generator()
    for name, write in generator.PAGES.items():
        (tmp_path / name).write_text(write(), encoding="utf-8")
    (tmp_path / "options.md").write_text("edited by hand\n", encoding="utf-8")
    monkeypatch.setattr(generator, "REFERENCE", tmp_path)
    assert generator.main(["--check"]) == 1
    assert capsys.readouterr().err == "docs/reference/options.md is stale: run python docs/generate.py\n"
    generator.main([])
    assert generator.main(["--check"]) == 0


def test_every_generated_page_is_in_the_navigation():
    navigation = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    for name in _generator().PAGES:
        assert f"reference/{name}" in navigation, name


def test_the_readme_links_name_files_of_the_clone():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    targets = [target.split("#")[0] for target in re.findall(r"\]\(([^)]+)\)", readme) if "://" not in target]
    assert targets
    for target in targets:
        assert (REPO / target).is_file(), target
