"""What ``import agui_widget`` and the first ``AgentChat()`` cost, each in a fresh interpreter.

Every measurement runs in its own subprocess (``sys.executable``), timed inside it with
``time.perf_counter()`` so the interpreter's own start-up is not counted:

a. ``import agui_widget`` in a plain interpreter (a script, a test run, a server);
b. ``import agui_widget`` after ``import IPython, ipykernel.kernelapp, ipykernel.ipkernel``, what
   a notebook kernel has loaded before its first cell: only the import of agui_widget is timed;
c. ``from agui_widget import AgentChat; AgentChat()`` in that kernel-like setting: the first chat
   made, import included (outside a kernel the widget's comm is a no-op);
d. ``import ag_ui.core, anywidget, jsonpatch`` in that setting: the floor that agui-widget's
   dependencies set, whatever agui-widget's own modules do;
e. ``import agui_widget`` once those are loaded too: what agui-widget's own modules add;
f. ``from agui_widget import AgentChat; AgentChat()`` once those are loaded: agui-widget's own
   share of the first chat (the start-up target), with what ``AgentChat()`` asks of anywidget and
   ipywidgets (its traits, its comm, reading the bundle) counted in.

The runs go round the settings in turn, so a machine that slows down for a while slows them all.
Each timed import starts with the garbage collector's backlog cleared (``gc.collect()`` after the
preload): otherwise the first older-generation collection during the timed import walks the
objects the preload just made, about 1.5 ms charged to whatever was imported next.
Then b and c again in real ipykernels (one fresh kernel a run, started through the kernel-level
tests' fake front end, its comm open), to check that the kernel-like setting stands for a kernel.

Runs read compiled bytecode, as an installed package does (pip compiles wheels): they use a
private ``PYTHONPYCACHEPREFIX``, filled by one unmeasured warm-up, whatever the environment says
about writing bytecode. ``--no-bytecode`` measures a source tree that writes no bytecode (the
installed packages keep theirs; agui-widget's sources are compiled on every run).

The breakdown runs b under ``python -X importtime`` and adds each module's own time to its
distribution: agui-widget, ag-ui-protocol, pydantic, anywidget (with psygnal), ipywidgets (with
traitlets and comm), the standard library and the rest. ``-X importtime`` slows imports down
by about a quarter; its shares matter, the totals come from a-e.

Usage::

    python benchmarks/import_time.py            # Markdown tables for docs/performance.md
    python benchmarks/import_time.py --json     # the raw numbers
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

KERNEL_PRELOAD = "import IPython, ipykernel.kernelapp, ipykernel.ipkernel"
"""What an ipykernel has imported before running a cell (its app, shell and comm machinery)."""

DEPENDENCIES = "import ag_ui.core, anywidget, jsonpatch"

TIMED = r"""
import gc, sys, time
{preload}
gc.collect()
t0 = time.perf_counter()
{code}
t1 = time.perf_counter()
assert "langroid" not in sys.modules and "langchain_core" not in sys.modules
print((t1 - t0) * 1000)
"""

SETTINGS = {
    "plain": ("`import agui_widget`, plain interpreter", "", "import agui_widget"),
    "kernel": ("`import agui_widget`, kernel-like (IPython and ipykernel loaded)", KERNEL_PRELOAD, "import agui_widget"),
    "first_chat": (
        "`from agui_widget import AgentChat; AgentChat()`, kernel-like",
        KERNEL_PRELOAD,
        "from agui_widget import AgentChat\nAgentChat()",
    ),
    "dependencies": (f"its dependencies alone, `{DEPENDENCIES}`, kernel-like", KERNEL_PRELOAD, DEPENDENCIES),
    "own": (
        "agui-widget's own modules: `import agui_widget` with those already loaded, kernel-like",
        f"{KERNEL_PRELOAD}\n{DEPENDENCIES}",
        "import agui_widget",
    ),
    "own_first_chat": (
        "agui-widget's own share of the first chat: `from agui_widget import AgentChat; AgentChat()` with those already loaded, kernel-like",
        f"{KERNEL_PRELOAD}\n{DEPENDENCIES}",
        "from agui_widget import AgentChat\nAgentChat()",
    ),
}

IN_KERNEL = r"""
import sys, time
t0 = time.perf_counter()
import agui_widget
t1 = time.perf_counter()
from agui_widget import AgentChat
chat = AgentChat()
t2 = time.perf_counter()
timed = {"kernel": (t1 - t0) * 1000, "first_chat": (t2 - t0) * 1000}
"""

GROUPS = (
    ("agui_widget", ("agui_widget",)),
    ("ag_ui", ("ag_ui",)),
    ("pydantic", ("pydantic", "pydantic_core", "annotated_types", "typing_inspection", "typing_extensions")),
    ("anywidget", ("anywidget", "psygnal")),
    ("ipywidgets", ("ipywidgets", "traitlets", "comm")),
    ("jsonpatch", ("jsonpatch", "jsonpointer")),
)
"""Distributions of the breakdown, by the top-level names of their modules."""


def _environment(bytecode: bool, cache: str) -> dict[str, str]:
    """The variables every run gets (an empty value unsets a PYTHON* variable)."""
    if bytecode:
        return {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": cache, "PYTHONPROFILEIMPORTTIME": ""}
    # installed packages keep their own bytecode; agui-widget's sources compile on each run
    return {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "", "PYTHONPROFILEIMPORTTIME": ""}


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=ROOT, env={**os.environ, **env}, timeout=120
    )
    if done.returncode != 0:
        raise RuntimeError(f"{args!r} failed:\n{done.stderr}")
    return done


def measure(setting: str, env: dict[str, str]) -> float:
    """Milliseconds of the timed code of ``setting`` in a fresh interpreter."""
    _label, preload, code = SETTINGS[setting]
    return float(_run(["-c", TIMED.format(preload=preload, code=code)], env).stdout.split()[-1])


async def measure_in_kernels(repeats: int, env: dict[str, str]) -> dict[str, list[float]]:
    """Milliseconds of b and c in real ipykernels, a fresh kernel a run."""
    from tests.kernel_harness import FakeFrontEnd

    runs: dict[str, list[float]] = {"kernel": [], "first_chat": []}
    for _ in range(repeats):
        async with FakeFrontEnd.running(env=env, cwd=ROOT) as fe:
            await fe.execute(IN_KERNEL, timeout=120)
            for key, value in (await fe.evaluate("timed")).items():
                runs[key].append(value)
    return runs


def _group(module: str) -> str:
    top = module.split(".")[0]
    for group, tops in GROUPS:
        if top in tops:
            return group
    return "stdlib" if top in sys.stdlib_module_names or top.startswith("_") else "other"


def breakdown(repeats: int, env: dict[str, str]) -> dict[str, float]:
    """The median milliseconds each group adds to the kernel-like ``import agui_widget``."""
    marker = "import time: agui-widget-starts"
    script = f"{KERNEL_PRELOAD}\nimport sys\nprint('{marker}', file=sys.stderr)\nimport agui_widget"
    runs: list[dict[str, float]] = []
    for _ in range(repeats):
        stderr = _run(["-X", "importtime", "-c", script], env).stderr
        totals: dict[str, float] = {}
        for line in stderr.split(marker, 1)[1].splitlines():
            if not line.startswith("import time:") or line.count("|") != 2:
                continue
            own, _cumulative, name = line[len("import time:") :].split("|")
            group = _group(name.strip())
            totals[group] = totals.get(group, 0.0) + int(own) / 1000
        runs.append(totals)
    groups = sorted({group for run in runs for group in run})
    return {group: statistics.median(run.get(group, 0.0) for run in runs) for group in groups}


def _summary(times: list[float]) -> dict[str, Any]:
    return {"runs": times, "median": statistics.median(times), "min": min(times)}


def run(repeats: int, kernels: int, bytecode: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="agui-import-") as cache:
        env = _environment(bytecode, cache)
        _run(["-c", TIMED.format(preload=KERNEL_PRELOAD, code=SETTINGS["first_chat"][2])], env)  # fills the cache
        results: dict[str, Any] = {"repeats": repeats, "bytecode": bytecode, "python": sys.version.split()[0]}
        runs: dict[str, list[float]] = {setting: [] for setting in SETTINGS}
        for _ in range(repeats):
            for setting in SETTINGS:
                runs[setting].append(measure(setting, env))
        for setting, times in runs.items():
            results[setting] = _summary(times)
        if kernels:
            in_kernels = asyncio.run(measure_in_kernels(kernels, env))
            results["real_kernel"] = {key: _summary(times) for key, times in in_kernels.items()}
        results["breakdown"] = breakdown(max(3, repeats // 2), env)
    return results


def table(results: dict[str, Any]) -> str:
    rows = ["| what is timed | median ms | best ms |", "|---|---:|---:|"]
    for setting, (label, _preload, _code) in SETTINGS.items():
        row = results[setting]
        rows.append(f"| {label} | {row['median']:.0f} | {row['min']:.0f} |")
    real = results.get("real_kernel")
    if real:
        kernel_labels = {
            "kernel": "`import agui_widget` in a real ipykernel",
            "first_chat": "`import agui_widget` and the first `AgentChat()` in a real ipykernel",
        }
        for key, label in kernel_labels.items():
            rows.append(f"| {label} ({len(real[key]['runs'])} kernels) | {real[key]['median']:.0f} | {real[key]['min']:.0f} |")
    parts = results["breakdown"]
    labels = {
        "agui_widget": "agui-widget's own modules",
        "ag_ui": "ag-ui-protocol (`ag_ui.core`, its generated pydantic models)",
        "pydantic": "pydantic itself",
        "anywidget": "anywidget (with psygnal)",
        "ipywidgets": "ipywidgets (with traitlets, comm)",
        "jsonpatch": "jsonpatch, jsonpointer",
        "stdlib": "the standard library",
        "other": "other packages",
    }
    rows += ["", "| kernel-like `import agui_widget`, own time of each distribution's modules | median ms |", "|---|---:|"]
    for group, label in labels.items():
        if group in parts:
            rows.append(f"| {label} | {parts[group]:.1f} |")
    code = "compiled bytecode" if results["bytecode"] else "agui-widget's sources compiled on every run (no bytecode)"
    rows.append(
        f"\n{results['repeats']} fresh interpreters per row, Python {results['python']}, {code}; "
        f"the breakdown is the median of its own runs under `-X importtime` (which adds about a quarter)."
    )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=11, help="fresh interpreters per measurement (default 11)")
    parser.add_argument("--kernels", type=int, default=5, help="real ipykernels to measure in (default 5; 0: none)")
    parser.add_argument("--no-bytecode", action="store_true", help="compile agui-widget's sources on every run")
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    args = parser.parse_args(argv)
    results = run(args.repeats, args.kernels, bytecode=not args.no_bytecode)
    print(json.dumps(results, indent=2) if args.json else table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
