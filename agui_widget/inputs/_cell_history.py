"""What the kernel remembers of the cells run so far, as text for the agent: the last cells with
their outputs (``cell_history``) and the last exception as IPython showed it, with the cell that
raised it (``last_error``).

Everything is read from IPython's own records: ``In`` (the history manager's raw inputs), ``Out``
and, on IPython 9, its record of each cell's printed and displayed outputs; ``sys.last_value`` and
``sys.last_traceback``, which IPython sets when it shows a traceback.
"""

from __future__ import annotations

import linecache
import sys
import traceback
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any

from ..vocabulary._display import strip_ansi
from ._cell_capture import is_tool_cell
from ._namespace import fit, safe_repr

CELL_PART_LIMIT = 2_000
"""Characters of one cell's source, or of its output, in the history (a long one is cut)."""

NO_IPYTHON = "There is no IPython kernel here: this Python is not running a notebook."


# -- the last cells -------------------------------------------------------------------------------


def cell_history_text(shell: Any, n: int) -> str:
    """The last ``n`` cells run, oldest first: each one's number, source and output text; the
    cells the agent ran with ``run_python`` are marked."""
    if shell is None:
        return NO_IPYTHON
    sources = _raw_inputs(shell)
    numbers = [i for i in range(len(sources) - 1, 0, -1) if isinstance(sources[i], str) and sources[i].strip()][:n]
    if not numbers:
        return "No cells have been run yet in this kernel session (cells run without storing history are not recorded)."
    shown = [_cell_text(shell, i, sources[i]) for i in reversed(numbers)]
    heading = f"The last {len(numbers)} cell{'s' if len(numbers) != 1 else ''} run, oldest first:"
    return heading + "\n\n" + "\n\n".join(shown)


def _raw_inputs(shell: Any) -> Sequence[Any]:
    history = getattr(shell, "history_manager", None)
    raw = getattr(history, "input_hist_raw", None)
    if isinstance(raw, Sequence) and len(raw) > 1:
        return raw
    user_in = getattr(shell, "user_ns", {}).get("In")
    return user_in if isinstance(user_in, Sequence) else []


def _cell_text(shell: Any, number: int, source: str) -> str:
    mark = " (run by the agent with run_python)" if is_tool_cell(shell, number) else ""
    parts = [f"In [{number}]{mark}:", fit(source.rstrip("\n"), CELL_PART_LIMIT)]
    output = _output_text(shell, number)
    if output:
        parts.append("Output:\n" + fit(output, CELL_PART_LIMIT))
    return "\n".join(parts)


def _output_text(shell: Any, number: int) -> str:
    """The cell's printed output, displays and result, from IPython's record of its outputs (IPython
    9), else its ``Out`` value."""
    history = getattr(shell, "history_manager", None)
    outputs = getattr(history, "outputs", None)
    recorded = outputs.get(number) if isinstance(outputs, Mapping) else None
    if recorded:
        return "\n".join(filter(None, (_recorded_text(output, number) for output in recorded)))
    reprs = getattr(history, "output_hist_reprs", None)
    if isinstance(reprs, Mapping) and isinstance(reprs.get(number), str):
        return f"Out[{number}]: {reprs[number]}"
    out = getattr(shell, "user_ns", {}).get("Out")
    if isinstance(out, Mapping) and number in out:
        return f"Out[{number}]: {fit(safe_repr(out[number]), CELL_PART_LIMIT)}"
    return ""


def _recorded_text(output: Any, number: int) -> str:
    kind = getattr(output, "output_type", "")
    bundle = getattr(output, "bundle", None)
    if not isinstance(bundle, Mapping):
        return ""
    if kind in ("out_stream", "err_stream"):
        stream = bundle.get("stream")
        text = "".join(str(part) for part in stream) if isinstance(stream, list) else str(stream or "")
        return text.rstrip("\n") if kind == "out_stream" else "[stderr] " + text.rstrip("\n")
    plain = bundle.get("text/plain")
    text = "".join(plain) if isinstance(plain, list) else plain if isinstance(plain, str) else "(a rich output)"
    return f"Out[{number}]: {text}" if kind == "execute_result" else f"[display] {text}"


# -- the last error -------------------------------------------------------------------------------


def last_error_text(shell: Any) -> str:
    """The last exception IPython showed: its type, message and traceback (no colour codes), with
    the source of the cell that raised it; "no error yet" when there was none."""
    value = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
    if not isinstance(value, BaseException):
        return "No error yet: no cell has raised an exception in this kernel session."
    etype = getattr(sys, "last_type", None) or type(value)
    tb = getattr(sys, "last_traceback", None) or value.__traceback__
    parts = [f"The last error: {_one_line(value)}"]
    cell = _raising_cell(shell, value, tb) if shell is not None else None
    if cell is not None:
        number, source = cell
        label = f"In [{number}]" if number is not None else "The cell"
        mark = " (a cell the agent ran with run_python)" if number is not None and is_tool_cell(shell, number) else ""
        parts.append(f"{label}{mark} raised it:\n{fit(source.rstrip(), CELL_PART_LIMIT)}")
    parts.append("Traceback:\n" + _traceback_text(shell, etype, value, tb))
    return "\n\n".join(parts)


def _one_line(value: BaseException) -> str:
    message = safe_repr(value, str)
    return f"{type(value).__name__}: {message}" if message else type(value).__name__


def _traceback_text(shell: Any, etype: Any, value: BaseException, tb: TracebackType | None) -> str:
    """The traceback as IPython shows it (its frames, the cell's lines), without colour codes."""
    try:
        if isinstance(value, SyntaxError):
            stb = shell.SyntaxTB.structured_traceback(etype, value, [])
        else:
            stb = shell.InteractiveTB.structured_traceback(etype, value, tb)
        return strip_ansi(shell.InteractiveTB.stb2text(stb)).strip("\n")
    except Exception:  # no shell, or a formatter that failed: Python's own format
        return "".join(traceback.format_exception(etype, value, tb)).strip("\n")


def _raising_cell(shell: Any, value: BaseException, tb: TracebackType | None) -> tuple[int | None, str] | None:
    """The number and source of the cell whose code raised: the outermost frame from a cell."""
    filenames = [value.filename] if isinstance(value, SyntaxError) and isinstance(value.filename, str) else []
    while tb is not None:
        filenames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    for filename in filenames:
        found = _cell_of_file(shell, filename)
        if found is not None:
            return found
    return None


def _cell_of_file(shell: Any, filename: str) -> tuple[int | None, str] | None:
    """IPython's compiler names each cell's file: IPython 8+ maps the name to the cell's number;
    older ones keep the code in linecache, which is matched against ``In``."""
    sources = _raw_inputs(shell)
    mapping = getattr(getattr(shell, "compile", None), "_filename_map", None)
    if isinstance(mapping, Mapping) and isinstance(mapping.get(filename), int):
        number = mapping[filename]
        if 0 < number < len(sources):
            return number, str(sources[number])
    cached = getattr(linecache, "_ipython_cache", {}).get(filename)
    if not cached:
        return None
    code = "".join(cached[2])
    parsed = getattr(getattr(shell, "history_manager", None), "input_hist_parsed", None) or []
    for number in range(len(parsed) - 1, 0, -1):
        if str(parsed[number]).rstrip() == code.rstrip():
            return number, str(sources[number]) if number < len(sources) else code
    return None, code


__all__ = ["cell_history_text", "last_error_text"]
