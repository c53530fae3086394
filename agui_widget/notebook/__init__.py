"""The chat's side of the notebook in IPython: ``%load_ext agui_widget`` adds the ``%%chat`` and
``%chat`` magics and the "Ask the chat about this error" button under a failing cell's traceback.

Both talk to the chat shown last unless a chat is named; :func:`ask_about_error` is the button's
job done from a cell, where no widget can show.
"""

from __future__ import annotations

from ._errors import ask_about_error
from ._extension import load_ipython_extension, unload_ipython_extension

__all__ = ["ask_about_error", "load_ipython_extension", "unload_ipython_extension"]
