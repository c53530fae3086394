"""The package imports in one direction: no module imports, directly or through others, a module
that imports it back. (The layers themselves are import-linter's contracts in pyproject.toml,
checked by `make lint`; this holds the whole package, layers or not.)"""

from __future__ import annotations

import re
from pathlib import Path

import grimp
import tomllib

import agui_widget


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The groups of modules that import each other in a circle (Tarjan's strongly connected
    components of the direct-import graph), iteratively so a deep chain cannot overflow."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cycles: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    cycles.append(sorted(group))
    return cycles


def test_no_module_of_the_package_imports_itself_back() -> None:
    graph = grimp.build_graph("agui_widget", exclude_type_checking_imports=True)
    assert import_cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("p", "p.a", "p.b", "p.c"):
        graph.add_module(name)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.c")
    graph.add_import(importer="p.c", imported="p.a")
    assert import_cycles(graph) == [["p.a", "p.b", "p.c"]]


def _contracts() -> list[dict[str, object]]:
    with open(Path(__file__).resolve().parent.parent / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["tool"]["importlinter"]["contracts"]


def _layer_names(contract: dict[str, object]) -> set[str]:
    layers = contract["layers"]
    assert isinstance(layers, list)
    return {name.strip() for layer in layers for name in re.split(r"[|:]", layer)}


def test_every_module_of_the_package_is_in_a_layer_of_the_flow() -> None:
    """A new module or package at the top is placed in the flow, so imports it should not make are caught."""
    flow = next(c for c in _contracts() if "containers" not in c and c["type"] == "layers")
    placed = _layer_names(flow)
    package = Path(agui_widget.__file__).parent
    top = {f"agui_widget.{p.stem}" for p in package.glob("*.py") if p.stem != "__init__"}
    top |= {f"agui_widget.{p.name}" for p in package.iterdir() if (p / "__init__.py").exists()}
    assert sorted(top - placed) == []


def test_every_module_of_a_layered_stage_is_in_one_of_its_layers() -> None:
    """Within a stage whose modules are layered, a new module is placed too."""
    package = Path(agui_widget.__file__).parent
    unplaced = []
    for contract in _contracts():
        for container in contract.get("containers", []):  # type: ignore[attr-defined]
            folder = package.joinpath(*container.split(".")[1:])
            modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
            modules |= {p.name for p in folder.iterdir() if (p / "__init__.py").exists()}
            unplaced += [f"{container}.{m}" for m in sorted(modules - _layer_names(contract))]
    assert unplaced == []
