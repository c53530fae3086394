"""Build hook: runs the front-end builds so a wheel (and `pip install -e .`) carries a working widget
and its JupyterLab / Notebook 7 extension (shared data: share/jupyter/labextensions/agui-widget)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ROOT = Path(__file__).parent
JS = ROOT / "js"
BUNDLES = [ROOT / "agui_widget" / "static" / name for name in ("widget.js", "vega.js")]
LABEXTENSION = JS / "labextension"
LABEXTENSION_BUILT = [ROOT / "agui_widget" / "labextension" / name for name in ("package.json", "install.json")]


def _newest(paths: Iterable[Path]) -> float:
    return max((p.stat().st_mtime for p in paths if p.is_file()), default=0.0)


def _sources(folder: Path, *extra: str) -> list[Path]:
    return [
        folder / "package.json",
        folder / "package-lock.json",
        *(folder / name for name in extra),
        *(folder / "src").rglob("*"),
    ]


def _stale(outputs: list[Path], sources: list[Path]) -> bool:
    newest = _newest(sources)
    return not all(output.exists() and output.stat().st_mtime >= newest for output in outputs)


def _npm_build(npm: str, folder: Path) -> None:
    if not (folder / "node_modules").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=folder, check=True)
    subprocess.run([npm, "run", "build"], cwd=folder, check=True)


class JSBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or os.environ.get("AGUI_WIDGET_SKIP_JS"):
            return
        if not (JS / "package.json").exists():  # building from an sdist that ships the bundle
            return
        builds = [
            (JS, _stale(BUNDLES, _sources(JS))),
            (LABEXTENSION, _stale(LABEXTENSION_BUILT, _sources(LABEXTENSION, "build.mjs", "install.json", "core/package.json"))),
        ]
        if not any(stale for _folder, stale in builds):
            return
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("agui-widget's front end needs Node.js and npm to build (https://nodejs.org)")
        for folder, stale in builds:
            if stale:
                _npm_build(npm, folder)
