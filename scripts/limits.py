"""Size limits that keep the package readable, checked by ``make lint``.

No class over 500 lines and no function over 80 lines in ``agui_widget/`` (ruff's C901 holds
each function's cyclomatic complexity at 15). A unit that grows past them has taken on a second
concern: split it along that concern rather than raising the limit.

    python scripts/limits.py [PATH ...]   # exits 1 and names each offender
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

MAX_CLASS_LINES = 500
MAX_FUNCTION_LINES = 80
ROOT = Path(__file__).resolve().parent.parent


def offenders(path: Path) -> Iterator[str]:
    """Each class and function of one file over its limit, as ``file:line: what``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            limit, kind = MAX_CLASS_LINES, "class"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            limit, kind = MAX_FUNCTION_LINES, "function"
        else:
            continue
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        lines = (node.end_lineno or node.lineno) - start + 1
        if lines > limit:
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            yield f"{shown}:{node.lineno}: {kind} {node.name} is {lines} lines (limit {limit})"


def main(argv: list[str]) -> int:
    roots = [Path(a).resolve() for a in argv] or [ROOT / "agui_widget"]
    files = sorted(f for r in roots for f in ([r] if r.is_file() else r.rglob("*.py")))
    found = [line for f in files for line in offenders(f)]
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
