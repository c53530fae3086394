"""The size check `make lint` runs on the package (scripts/limits.py) names each unit over its limit."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _limits() -> ModuleType:
    spec = importlib.util.spec_from_file_location("limits", ROOT / "scripts" / "limits.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["limits"] = module
    spec.loader.exec_module(module)
    return module


def test_a_long_function_and_a_long_class_are_named(tmp_path: Path) -> None:
    limits = _limits()
    body = "".join(f"    x{i} = {i}\n" for i in range(limits.MAX_FUNCTION_LINES))
    source = tmp_path / "long.py"
    source.write_text(
        "def short():\n    return 1\n\n\ndef long():\n" + body + "\n\nclass Big:\n" + "    a = 1\n" * limits.MAX_CLASS_LINES
    )
    found = list(limits.offenders(source))
    assert len(found) == 2
    assert ":5: function long is 81 lines (limit 80)" in found[0]
    assert "class Big is 501 lines (limit 500)" in found[1]
    assert limits.main([str(source)]) == 1
    (tmp_path / "long.py").write_text("def short():\n    return 1\n")
    assert limits.main([str(tmp_path)]) == 0
