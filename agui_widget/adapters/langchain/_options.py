"""The options of the LangChain adapter, middleware and callback handler: one validated model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Union

from ag_ui.core import RunAgentInput
from pydantic import BaseModel, ConfigDict, Field, field_validator

EmitState = Literal["initial", "final", "all", "none"]
ErrorDetail = Literal["full", "message", "code", "none"]
IdOverride = Union[str, Callable[[RunAgentInput], str], None]


class AGUIOptions(BaseModel):
    """How a LangChain object speaks AG-UI. Every field has a default; unknown fields are errors.

    - ``emit_state``: ``all`` (default) sends a STATE_SNAPSHOT when the run starts and a
      STATE_DELTA (RFC 6902 JSON Patch) whenever a step changes a shared key; ``initial`` only the
      snapshot at the start; ``final`` one snapshot when the run ends; ``none`` no state events.
    - ``state_keys``: the keys of the agent's state schema shared with the UI. ``None`` (default)
      shares every key except ``messages`` and LangChain's internal ones.
    - ``max_ui_payload``: a tool result longer than this many characters is cut for the UI only
      (the model keeps the whole result) and the card says how much was cut. ``None``: never cut.
    - ``error_detail``: what RUN_ERROR tells the UI: ``full`` (message, code and traceback),
      ``message`` (default: message and code), ``code`` (only the code), ``none`` (a generic
      message).
    - ``thread_id`` / ``run_id``: overrides for the LangGraph thread (the checkpointer's key;
      default: the AG-UI thread id) and for the LangChain run id that traces are filed under
      (default: a fresh one per run). A string, or a function of the ``RunAgentInput``.
    - ``emit_steps``: STEP_STARTED/STEP_FINISHED around each model call and tool node.
    - ``emit_custom``: CUSTOM events for ``custom`` stream writes and LangChain custom events.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    emit_state: EmitState = "all"
    state_keys: tuple[str, ...] | None = None
    max_ui_payload: int | None = Field(default=20_000, ge=100)
    error_detail: ErrorDetail = "message"
    thread_id: IdOverride = None
    run_id: IdOverride = None
    emit_steps: bool = True
    emit_custom: bool = True

    @field_validator("state_keys", mode="before")
    @classmethod
    def _keys(cls, value: Any) -> Any:
        if isinstance(value, str):
            return (value,)
        return value

    def resolve_thread_id(self, input: RunAgentInput) -> str:
        value = self.thread_id(input) if callable(self.thread_id) else self.thread_id
        return str(value) if value else input.thread_id

    def resolve_run_id(self, input: RunAgentInput) -> str | None:
        value = self.run_id(input) if callable(self.run_id) else self.run_id
        return str(value) if value else None


def make_options(options: AGUIOptions | dict[str, Any] | None = None, **overrides: Any) -> AGUIOptions:
    """Options from a model, a dict and/or keyword arguments (later ones win), validated."""
    if isinstance(options, AGUIOptions):
        base = options.model_dump()
    elif options is None:
        base = {}
    elif isinstance(options, dict):
        base = dict(options)
    else:
        raise TypeError(f"options must be AGUIOptions or a dict, not {type(options).__name__}")
    return AGUIOptions(**{**base, **overrides})
