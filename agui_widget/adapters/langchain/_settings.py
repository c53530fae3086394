"""The model settings a run takes from ``RunAgentInput.forwardedProps``.

Five keys are read; every other forwarded prop is left to the code that runs (it is in
:attr:`RunContext.forwarded_props <agui_widget.adapters.langchain.RunContext>`), and a value of the
wrong type is left out with a warning. ``None`` means not set (a turn's way to drop a chat-wide
setting). Where each setting goes:

- every one into ``config["configurable"]`` under its own key, where LangChain's configurable
  models (``init_chat_model(configurable_fields=...)``, ``configurable_fields`` /
  ``configurable_alternatives`` with those ids) and a graph's own nodes read it;
- the call settings (all but ``model``) also as keyword arguments of the model call: bound to a
  chat model run for the run, or, in a ``create_agent`` agent with ``agui_middleware()``, added to
  each model request's ``model_settings``.

A key the agent's own ``config["configurable"]`` sets, a keyword argument the model is already
bound with, and a ``model_settings`` entry another middleware set are the agent's: a run's props
do not change them.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import Any

from .._model_settings import MODEL_SETTINGS, model_settings, props_of

CALL_SETTINGS = tuple(key for key in MODEL_SETTINGS if key != "model")
"""Settings passed to the model call itself (a chat model's call keyword arguments)."""


def call_settings(settings: Mapping[str, Any], *, taken: Container[str] = ()) -> dict[str, Any]:
    """The call settings among ``settings``, less the keys in ``taken`` (set by the agent itself)."""
    return {key: settings[key] for key in CALL_SETTINGS if key in settings and key not in taken}


__all__ = ["CALL_SETTINGS", "MODEL_SETTINGS", "call_settings", "model_settings", "props_of"]
