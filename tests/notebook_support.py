"""Python tools for the tests of ``chat.to_notebook``: an analysis's steps, importable by the
kernel that runs the written notebook again (``from tests.notebook_support import ...``)."""

from __future__ import annotations

import contextlib
import html
import io
from typing import Any

SALES = {"customer": ["Ada", "Grace", "Alan", "Edsger"], "total": [420, 380, 150, 90]}


def top_customers(n: int = 3) -> Any:
    """The n customers who bought the most, as a table."""
    import pandas as pd

    return pd.DataFrame(SALES).nlargest(n, "total").reset_index(drop=True)


def sales_chart(title: str) -> Any:
    """A bar chart of the sales."""
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(3, 2))
    axes.bar(SALES["customer"], SALES["total"])
    axes.set_title(title)
    return figure


def refund(order: str, /, amount: float, *, reason: str = "") -> dict[str, Any]:
    """Refund an order (positional-only order, keyword-only reason)."""
    return {"order": order, "amount": amount, "reason": reason}


def explode(message: str) -> None:
    """Fail with this message."""
    raise RuntimeError(message)


class _Printed:
    """What the stand-in ``run_python`` returns: the text the code printed, also shown as a display."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/markdown": self.text, "text/html": f"<pre>{html.escape(self.text)}</pre>"}


NAMESPACE: dict[str, Any] = {}


def run_python(code: str) -> Any:
    """Run Python code (a stand-in for notebook_tools()'s run_python: its text and a display)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "<agent>", "exec"), NAMESPACE)
    return _Printed(printed.getvalue())
