"""RUN_ERROR as much as ``error_detail`` lets the UI see of the framework's error."""

from __future__ import annotations

import traceback

from ag_ui.core import RunErrorEvent

from ...vocabulary._errors import describe_exception
from ._options import ErrorDetail


def shaped_error(exc: BaseException, detail: ErrorDetail) -> RunErrorEvent:
    """``full``: message, code and traceback; ``message``: message and code; ``code``: the code
    only; ``none``: a generic message."""
    message, code = describe_exception(exc)
    if detail == "full":
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return RunErrorEvent(message=f"{message}\n\n{trace}", code=code)
    if detail == "code":
        return RunErrorEvent(message=f"The agent failed ({code}).", code=code)
    if detail == "none":
        return RunErrorEvent(message="The agent failed.")
    return RunErrorEvent(message=message, code=code)
