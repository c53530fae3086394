"""The Langroid adapter's modules form a tree: nothing imports in a circle, and no module reaches
into another module's private names (a module's interface is its public names).

Read from the source (ast), so every import counts, also those inside functions or under
``TYPE_CHECKING`` that a test importing the modules would not notice."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import agui_widget.adapters.langroid as package

PACKAGE = package.__name__
SOURCES = {path.stem: path.read_text(encoding="utf-8") for path in sorted(Path(package.__file__).parent.glob("*.py"))}
SELF_NAMES = {"self", "cls"}


# -- reading the modules -----------------------------------------------------------------------


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _imports(tree: ast.AST, modules: Iterable[str]) -> list[tuple[str, str | None]]:
    """(module of the package, name imported from it or None for the module itself), for every
    import anywhere in ``tree``."""
    known = set(modules)
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                base = node.module
            elif node.level == 0 and node.module and node.module.startswith(PACKAGE + "."):
                base = node.module[len(PACKAGE) + 1 :]
            elif node.level == 0 and node.module == PACKAGE:
                base = None
            else:
                continue
            if base is None:  # from . import _x: modules of the package
                found += [(alias.name, None) for alias in node.names if alias.name in known]
            elif base.split(".")[0] in known:
                found += [(base.split(".")[0], alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + "."):
                    name = alias.name[len(PACKAGE) + 1 :].split(".")[0]
                    if name in known:
                        found.append((name, None))
    return found


def import_graph(sources: Mapping[str, str]) -> dict[str, set[str]]:
    """Which modules of the package each module imports."""
    return {
        name: {target for target, _ in _imports(ast.parse(source), sources) if target != name} for name, source in sources.items()
    }


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """A cycle of the graph (its modules in order, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def _defined_private_names(tree: ast.AST) -> set[str]:
    """The private names a module defines: its own functions, classes and globals, its classes'
    methods and attributes (``self._x = ...`` included)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if _private(name)}


def private_uses(sources: Mapping[str, str]) -> list[str]:
    """Each place a module uses another module's private name: importing it, reading it off the
    module, calling it as a method on an object of that module, or passing it as a keyword."""
    trees = {name: ast.parse(source) for name, source in sources.items()}
    defined = {name: _defined_private_names(tree) for name, tree in trees.items()}
    problems: list[str] = []
    for name, tree in trees.items():
        others = set().union(*(names for other, names in defined.items() if other != name)) - defined[name]
        module_aliases: set[str] = set()
        for target, imported in _imports(tree, sources):
            if imported is None:
                module_aliases.add(target)
            elif _private(imported) and imported not in sources:
                problems.append(f"{name} imports {target}.{imported}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                owner = node.value.id if isinstance(node.value, ast.Name) else None
                if owner in module_aliases:
                    problems.append(f"{name} uses {owner}.{node.attr}")
                elif owner not in SELF_NAMES and node.attr in others:
                    problems.append(f"{name} uses {ast.unparse(node)}, private to another module")
            elif isinstance(node, ast.Call):
                callee = node.func.id if isinstance(node.func, ast.Name) else None
                for keyword in node.keywords:
                    if keyword.arg and _private(keyword.arg) and keyword.arg not in defined[name]:
                        problems.append(f"{name} passes {keyword.arg}= to {callee or ast.unparse(node.func)}")
    return problems


# -- the package -------------------------------------------------------------------------------


def test_the_modules_import_each_other_as_a_tree():
    graph = import_graph(SOURCES)
    assert find_cycle(graph) is None, f"an import cycle: {' -> '.join(find_cycle(graph) or [])}"
    importers = {name for name, targets in graph.items() if "_adapter" in targets}
    assert importers == {"__init__"}, "only the package imports the adapter: nothing imports back"
    runs = {"_agent_run", "_task_run"}
    assert {name for name, targets in graph.items() if targets & runs} == {"_adapter"}
    assert not graph["_agent_run"] & {"_task_run"} and not graph["_task_run"] & {"_agent_run"}


def test_no_module_uses_another_modules_private_names():
    assert private_uses(SOURCES) == []


def test_every_module_imports_first_in_a_fresh_interpreter():
    modules = [f"{PACKAGE}.{name}" for name in SOURCES if name != "__init__"]
    code = (
        "import importlib, sys\n"
        "from agui_widget.adapters.langroid._tiktoken import seed_tiktoken_cache\n"
        "seed_tiktoken_cache()\n"
        "import langroid\n"
        f"for module in {modules!r}:\n"
        f"    for loaded in [m for m in sys.modules if m.startswith({PACKAGE!r})]:\n"
        "        del sys.modules[loaded]\n"
        "    importlib.import_module(module)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


# -- the checks themselves find what they look for --------------------------------------------


def test_the_checks_find_a_cycle_and_private_uses():
    circle = {"a": "from .b import x", "b": "def f():\n    from .c import y", "c": "from . import a"}
    assert find_cycle(import_graph(circle)) == ["a", "b", "c", "a"]
    assert find_cycle(import_graph({"a": "from .b import x", "b": "import os"})) is None
    reaching = {
        "a": "from .b import _helper\nfrom . import b\nb._table\ndef run(worker):\n    worker._step()\n    b.Made(_field=1)",
        "b": "_table = {}\ndef _helper(): pass\nclass Worker:\n    def _step(self): pass\nclass Made:\n    _field: int = 0",
    }
    assert sorted(private_uses(reaching)) == [
        "a imports b._helper",
        "a passes _field= to b.Made",
        "a uses b._table",
        "a uses worker._step, private to another module",
    ]
    own = {"a": "class A:\n    def _x(self): pass\n    def y(self, other): return other._x(), self._x()", "b": ""}
    assert private_uses(own) == []
