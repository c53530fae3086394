"""The user's namespace, read safely: what ``list_variables`` and ``inspect_variable`` (and the
message box's ``@`` list) show of the kernel's variables.

Reading must never hurt the notebook: nothing here raises, walks a large object, or imports pandas
or NumPy for an object that is not theirs; a name that looks like a secret is listed without its
value ever being read; every text is cut to the size asked for, with a visible marker.
"""

from __future__ import annotations

import collections
import difflib
import functools
import inspect
import reprlib
import sys
import warnings
from collections.abc import Mapping
from types import ModuleType
from typing import Any

IPYTHON_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython"})
"""IPython's own names in a user namespace (besides the private ``_``, ``_i1``, ``_oh``...)."""

SECRET_WORDS = ("key", "token", "secret", "password", "passwd")
"""A name holding one of these (any case) is taken for a secret: listed, its value never read."""

ARRAY_LIBRARIES = frozenset({"numpy", "pandas", "polars", "torch", "tensorflow", "jax", "jaxlib", "xarray", "dask", "cupy"})
"""Libraries whose objects have a cheap ``shape``."""

SIZED_BUILTINS = (str, bytes, bytearray, list, tuple, dict, set, frozenset, collections.deque, range)
"""Types whose ``len()`` is cheap and safe to take."""

HEAD_ROWS = 5
SUMMARY_ROWS = 200_000
"""Rows a DataFrame's or a Series' ``describe()`` reads at most, so a huge one is not walked."""
MAX_COLUMNS = 30
"""Columns shown of a wide DataFrame."""
TEXT_PREVIEW = 20_000
"""Characters of a long string read for its preview (a repr of all of it could be huge)."""

_PREVIEW = reprlib.Repr()
_PREVIEW.maxlevel = 3
_PREVIEW.maxdict = _PREVIEW.maxlist = _PREVIEW.maxtuple = _PREVIEW.maxset = 20
_PREVIEW.maxfrozenset = _PREVIEW.maxdeque = 20
_PREVIEW.maxstring = 200
_PREVIEW.maxother = 400


# -- the namespace --------------------------------------------------------------------------------


def user_namespace() -> dict[str, Any] | None:
    """IPython's ``user_ns`` (the notebook's variables), or None outside IPython."""
    shell = ipython_shell()
    namespace = getattr(shell, "user_ns", None)
    return namespace if isinstance(namespace, dict) else None


def ipython_shell() -> Any:
    """The running IPython shell, without importing IPython where it is not loaded."""
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    try:
        return get_ipython() if callable(get_ipython) else None
    except Exception:
        return None


def looks_secret(name: str) -> bool:
    """True for a name like ``OPENAI_API_KEY``, ``db_password`` or ``token``."""
    lowered = name.lower()
    return any(word in lowered for word in SECRET_WORDS)


def variables(namespace: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per user variable, sorted by name: ``name``, ``type``, ``kind`` (data, function or
    class), ``shape`` (``"(48, 4)"``, ``"len 3"`` or None), ``size`` (bytes, a cheap estimate, or
    None) and ``secret``. Modules, private names, IPython's own names and the names IPython put
    there before the user ran anything are left out."""
    hidden = _names_there_at_start(namespace)
    rows = []
    for name in sorted(_user_names(namespace)):
        try:
            value = namespace[name]
        except Exception:  # gone meanwhile, or a mapping that refuses
            continue
        if isinstance(value, ModuleType) or (name in hidden and hidden[name] is value):
            continue
        rows.append(_row(name, value))
    return rows


def _user_names(namespace: Mapping[str, Any]) -> list[str]:
    try:
        names = list(namespace)  # a copy: a cell may change the namespace meanwhile
    except Exception:
        return []
    return [n for n in names if isinstance(n, str) and not n.startswith("_") and n not in IPYTHON_NAMES]


def _names_there_at_start(namespace: Mapping[str, Any]) -> Mapping[str, Any]:
    """IPython's ``user_ns_hidden`` when ``namespace`` is the running shell's: what it put there
    before the user ran anything (a name the user bound again is the user's)."""
    shell = ipython_shell()
    if shell is None or getattr(shell, "user_ns", None) is not namespace:
        return {}
    hidden = getattr(shell, "user_ns_hidden", None)
    return hidden if isinstance(hidden, Mapping) else {}


def _row(name: str, value: Any) -> dict[str, Any]:
    secret = looks_secret(name)
    row: dict[str, Any] = {"name": name, "type": _type_name(value), "kind": "data", "shape": None, "size": None, "secret": secret}
    try:
        row["kind"] = _kind(value)
        if row["kind"] == "data" and not secret:
            row["shape"] = _shape(value)
            row["size"] = _size(value)
    except Exception:  # an object whose attributes raise: listed with what is known
        pass
    return row


def _type_name(value: Any) -> str:
    return getattr(type(value), "__name__", "object")


def _module_of(value: Any) -> str:
    """The top package of ``value``'s type (``pandas`` for a DataFrame), read without touching it."""
    module = getattr(type(value), "__module__", None)
    return module.split(".")[0] if isinstance(module, str) else ""


def _kind(value: Any) -> str:
    if isinstance(value, type):
        return "class"
    if inspect.isroutine(value) or isinstance(value, functools.partial):
        return "function"
    return "data"


def _shape(value: Any) -> str | None:
    if _module_of(value) in ARRAY_LIBRARIES:
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple):
            return str(tuple(shape))
    if isinstance(value, SIZED_BUILTINS):
        return f"len {len(value)}"
    return None


def _size(value: Any) -> int | None:
    """Bytes in memory, cheaply: pandas' ``memory_usage(deep=False)``, an array's ``nbytes``,
    else ``sys.getsizeof`` (the object alone, not what it holds)."""
    try:
        module = _module_of(value)
        if module == "pandas" and callable(getattr(value, "memory_usage", None)):
            usage = value.memory_usage(deep=False)
            return int(usage.sum() if hasattr(usage, "sum") else usage)
        if module == "numpy" and isinstance(getattr(value, "nbytes", None), int):
            return int(value.nbytes)
        return sys.getsizeof(value)
    except Exception:
        return None


def size_text(size: int | None) -> str:
    """``1.5 KB``, ``12 MB``..., or ``?`` when unknown."""
    if size is None:
        return "?"
    amount = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if amount < 1024 or unit == "GB":
            return f"{int(amount)} {unit}" if unit == "bytes" else f"{amount:.1f} {unit}"
        amount /= 1024
    return f"{size} bytes"


# -- one variable ---------------------------------------------------------------------------------


def describe(namespace: Mapping[str, Any], name: str, max_chars: int) -> str:
    """What ``inspect_variable`` answers: a DataFrame's shape, dtypes, head and describe(); a
    Series' or an array's shape, dtype and statistics; a collection's length and a preview;
    anything else its repr. At most ``max_chars`` characters; never raises."""
    try:
        text = _describe(namespace, name)
    except Exception as exc:
        text = f"{name!r} could not be described: {exception_text(exc)}"
    return fit(text, max_chars)


def _describe(namespace: Mapping[str, Any], name: str) -> str:
    if not isinstance(name, str) or not name:
        return "Give the name of a variable, as text (list_variables lists them)."
    try:
        known = name in namespace
        value = namespace[name] if known else None
    except Exception as exc:
        return f"{name!r} could not be read: {exception_text(exc)}"
    if not known:
        return _unknown(namespace, name)
    if looks_secret(name):
        return f"{name}: {_type_name(value)}. Its value is withheld: the name looks like a secret."
    return _describe_value(name, value)


def _unknown(namespace: Mapping[str, Any], name: str) -> str:
    names = _user_names(namespace)
    same_but_case = [n for n in names if n.lower() == name.lower()]
    close = same_but_case + [n for n in difflib.get_close_matches(name, names, n=5, cutoff=0.6) if n not in same_but_case]
    text = f"There is no variable named {name!r} in the notebook."
    if close:
        return text + " Close names: " + ", ".join(close[:5]) + "."
    return text + " list_variables lists the variables there are."


def _describe_value(name: str, value: Any) -> str:
    module, type_name = _module_of(value), _type_name(value)
    if module in ("pandas", "numpy") and type_name in ("DataFrame", "Series", "ndarray"):
        import numpy

        describe_it = {"DataFrame": _describe_frame, "Series": _describe_series, "ndarray": _describe_array}[type_name]
        with numpy.errstate(all="ignore"):  # an overflow in the statistics is no warning for the user's cell
            return describe_it(name, value)
    if isinstance(value, (dict, list, tuple, set, frozenset, collections.deque)):
        return _describe_collection(name, value)
    if isinstance(value, (str, bytes, bytearray)):
        shown = safe_repr(value[:TEXT_PREVIEW]) + (" ..." if len(value) > TEXT_PREVIEW else "")
        return f"{name}: {type_name} of length {len(value):,}\n{shown}"
    kind = _kind(value)
    if kind == "data":
        return f"{name}: {type_name}\n{safe_repr(value)}"
    title = getattr(value, "__qualname__", None) or name
    heading = f"{name}: {'class' if kind == 'class' else type_name} {title}{_signature_text(value)}"
    doc = inspect.getdoc(value) or ""
    return heading + (f"\n{doc}" if doc else "")


def _describe_frame(name: str, frame: Any) -> str:
    import pandas

    rows, columns = frame.shape
    parts = [f"{name}: DataFrame, {rows:,} rows × {columns:,} columns, {size_text(_size(frame))} in memory"]
    with pandas.option_context("display.width", 120, "display.max_columns", MAX_COLUMNS, "display.max_colwidth", 40):
        dtypes = frame.dtypes.head(MAX_COLUMNS)
        more = f"\n  ... and {columns - MAX_COLUMNS:,} more columns" if columns > MAX_COLUMNS else ""
        parts.append("Columns (dtype):\n" + "\n".join(f"  {c}: {t}" for c, t in dtypes.items()) + more)
        parts.append(_section(f"First {HEAD_ROWS} rows", lambda: frame.head(HEAD_ROWS).to_string(max_cols=MAX_COLUMNS)))
        sample = frame if rows <= SUMMARY_ROWS else frame.head(SUMMARY_ROWS)
        title = "Summary (describe())" if rows <= SUMMARY_ROWS else f"Summary of the first {SUMMARY_ROWS:,} rows"
        parts.append(_section(title, lambda: _frame_summary(sample)))
    return "\n\n".join(parts)


def _frame_summary(frame: Any) -> str:
    numeric = frame.select_dtypes(include="number")
    subject = frame if numeric.shape[1] == 0 else numeric
    return str(subject.iloc[:, :MAX_COLUMNS].describe(include="all").to_string())


def _describe_series(name: str, series: Any) -> str:
    import pandas

    heading = (
        f"{name}: Series {series.name!r}, {len(series):,} values, dtype {series.dtype}, {size_text(_size(series))} in memory"
    )
    sample = series if len(series) <= SUMMARY_ROWS else series.head(SUMMARY_ROWS)
    with pandas.option_context("display.width", 120, "display.max_colwidth", 60):
        head = _section(f"First {HEAD_ROWS} values", lambda: series.head(HEAD_ROWS).to_string())
        summary = _section("Summary (describe())", lambda: sample.describe().to_string())
    return "\n\n".join([heading, head, summary])


def _describe_array(name: str, array: Any) -> str:
    import numpy

    parts = [f"{name}: ndarray, shape {tuple(array.shape)}, dtype {array.dtype}, {size_text(_size(array))} in memory"]
    if array.size and (numpy.issubdtype(array.dtype, numpy.number) or array.dtype == bool):
        parts.append(_section("Summary", lambda: _array_summary(numpy, array)))
    options = {"threshold": 60, "edgeitems": 3, "max_line_width": 100}
    parts.append(_section("Values", lambda: numpy.array2string(array, **options)))  # type: ignore[arg-type]
    return "\n\n".join(parts)


def _array_summary(numpy: Any, array: Any) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nanmin() of NaN only warns
        values = array.astype(float) if array.dtype == bool else array
        stats = {
            "min": numpy.nanmin(values),
            "max": numpy.nanmax(values),
            "mean": numpy.nanmean(values),
            "std": numpy.nanstd(values),
        }
        missing = int(numpy.isnan(values).sum()) if numpy.issubdtype(values.dtype, numpy.floating) else 0
    text = ", ".join(f"{key} {value:.6g}" if numpy.isrealobj(value) else f"{key} {value}" for key, value in stats.items())
    return text + (f"; {missing:,} NaN" if missing else "")


def _describe_collection(name: str, value: Any) -> str:
    count = len(value)
    noun = "items" if isinstance(value, dict) else "elements"
    parts = [f"{name}: {_type_name(value)} of {count:,} {noun}"]
    if isinstance(value, dict):
        keys = [_PREVIEW.repr(key) for key in _first(value, 30)]
        parts.append("Keys: " + ", ".join(keys) + (", ..." if count > len(keys) else ""))
    else:
        types = collections.Counter(_type_name(item) for item in _first(value, 1000))
        parts.append("Element types: " + ", ".join(f"{t} ×{n}" for t, n in types.most_common(8)) if types else "Empty.")
    parts.append("Preview: " + safe_repr(value, _PREVIEW.repr))
    return "\n".join(parts)


def _first(values: Any, count: int) -> list[Any]:
    items: list[Any] = []
    for item in values:
        if len(items) == count:
            break
        items.append(item)
    return items


def _signature_text(fn: Any) -> str:
    """``(x: int) -> int``: hints written as strings are read as the names they stand for where they can be."""
    for eval_str in (True, False):
        try:
            return str(inspect.signature(fn, eval_str=eval_str))
        except Exception:
            continue
    return ""


def _section(title: str, build: Any) -> str:
    """A titled part of a description; a part that fails says so and the rest is still shown."""
    try:
        return f"{title}:\n{build()}"
    except Exception as exc:
        return f"{title}: not available ({exception_text(exc)})"


# -- text -----------------------------------------------------------------------------------------


def safe_repr(value: Any, make: Any = repr) -> str:
    """``repr(value)``, or a clear text when the repr raises."""
    try:
        text = make(value)
        return text if isinstance(text, str) else str(text)
    except Exception as exc:
        return f"<its repr raised {exception_text(exc)}>"


def exception_text(exc: BaseException) -> str:
    """``Type: message`` (just the type when there is no message or it cannot be read)."""
    try:
        message = str(exc)
    except Exception:
        message = ""
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


_CUT = "\n… [{count:,} characters cut] …\n"


def fit(text: str, max_chars: int) -> str:
    """``text`` in at most ``max_chars`` characters: its beginning and its end (where a traceback
    says what went wrong) with a marker between them saying how much was cut."""
    if len(text) <= max_chars:
        return text
    marker = ""
    while True:  # the marker's own length changes how much is cut: settles within a few rounds
        settled = _CUT.format(count=len(text) - (max_chars - len(marker)))
        if settled == marker:
            break
        marker = settled
    keep = max_chars - len(marker)
    if keep < 2:
        return text[: max(max_chars, 0)]
    head = keep * 2 // 3
    return text[:head] + marker + text[len(text) - (keep - head) :]


__all__ = ["describe", "fit", "ipython_shell", "looks_secret", "user_namespace", "variables"]
