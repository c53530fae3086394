"""MkDocs hooks (mkdocs.yml, `hooks:`): the API reference must document every public name, and
the Sphinx roles some docstrings use (``:func:`name` ``) read as plain code.

The public names are read from the package's sources, without importing it: ``__all__`` of
``agui_widget``, ``agui_widget.adapters``, ``agui_widget.teaching`` and ``agui_widget.notebook``, and
``agui_widget.server.create_app``. A name counts as documented when a page of the site has the
heading mkdocstrings makes for it (an element whose ``id`` is the name's dotted path, under the
module or re-exported from ``agui_widget``). A name missing is a warning, which
``mkdocs build --strict`` (``make docs``) turns into a failed build.
"""

from __future__ import annotations

import ast
import logging
import re
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.hooks.api_coverage")

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agui_widget"
# Told of in docs/api/index.md rather than under a heading of its own (it is read on first use).
NOT_HEADINGS = {"__version__"}

_ids: set[str] = set()
_ID = re.compile(r'\bid="(agui_widget[\w.]*)"')
# mkdocstrings renders docstrings as Markdown, which leaves a role's name before its code.
_ROLE = re.compile(r":(?:func|class|meth|attr|data|mod|obj|exc):(?=<code>)")


def _all_of(init: Path) -> list[str]:
    """The names a module's ``__all__`` lists, read from its source."""
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
    return []


def public_names() -> list[tuple[str, tuple[str, ...]]]:
    """Each public name, with the dotted paths under which its heading may stand."""
    names: list[tuple[str, tuple[str, ...]]] = []
    for name in _all_of(PACKAGE / "__init__.py"):
        if name not in NOT_HEADINGS:
            names.append((f"agui_widget.{name}", (f"agui_widget.{name}",)))
    for module in ("adapters", "teaching", "notebook"):
        for name in _all_of(PACKAGE / module / "__init__.py"):
            names.append((f"agui_widget.{module}.{name}", (f"agui_widget.{module}.{name}", f"agui_widget.{name}")))
    names.append(("agui_widget.server.create_app", ("agui_widget.server.create_app",)))
    return names


def on_pre_build(config: Any) -> None:
    _ids.clear()


def on_post_page(output: str, page: Any, config: Any) -> str:
    _ids.update(_ID.findall(output))
    return _ROLE.sub("", output)


def on_post_build(config: Any) -> None:
    for name, headings in public_names():
        if not _ids.intersection(headings):
            log.warning("API reference: %s is public but no page of docs/api/ documents it", name)
