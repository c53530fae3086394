"""Build hook: runs the front-end build so a wheel (and `pip install -e .`) carries a working widget."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ROOT = Path(__file__).parent
JS = ROOT / "js"
BUNDLES = [ROOT / "agui_widget" / "static" / name for name in ("widget.js", "vega.js")]


def _newest_source() -> float:
    sources = [JS / "package.json", JS / "package-lock.json", *(JS / "src").rglob("*")]
    return max((p.stat().st_mtime for p in sources if p.is_file()), default=0.0)


class JSBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or os.environ.get("AGUI_WIDGET_SKIP_JS"):
            return
        if not (JS / "package.json").exists():  # building from an sdist that ships the bundle
            return
        newest = _newest_source()
        if all(bundle.exists() and bundle.stat().st_mtime >= newest for bundle in BUNDLES):
            return
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("agui-widget's front end needs Node.js and npm to build (https://nodejs.org)")
        if not (JS / "node_modules").exists():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=JS, check=True)
        subprocess.run([npm, "run", "build"], cwd=JS, check=True)
