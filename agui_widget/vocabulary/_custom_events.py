"""The names of the CUSTOM events (and the state key) the chat acts on, declared once.

An agent of any kind sends them (the demo agent does, to show each feature), and the chat's
generative UI reads them, so neither imports the other for a string.
"""

from __future__ import annotations

PREDICT_STATE_EVENT = "PredictState"
"""A list of rules: a state key follows a tool call's arguments while they stream (``chat/_predict.py``)."""

SUGGESTIONS = "suggestions"
"""The agent's suggested next messages, shown as chips under the transcript: a CUSTOM event of this
name, or the state key of this name (``chat/_genui.py``)."""
