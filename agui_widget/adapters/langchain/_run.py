"""One AG-UI run of a LangChain target: what the runs of every kind of target share."""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from ag_ui.core import RunAgentInput
from langchain_core.messages import BaseMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import merge_configs

from ...vocabulary._content import context_text
from .._base import Emitted, EventStream
from ._context import CONFIG_KEY, RunContext
from ._events import MessageMapper
from ._messages import to_langchain
from ._settings import model_settings, props_of

if TYPE_CHECKING:
    from ._agent import LangChainAgent


class LangChainRun(ABC):
    """One run of a :class:`LangChainAgent`: the agent (its target and settings), the run's input
    and stream, and the :class:`MessageMapper` that turns LangChain's messages into the stream's
    events. A subclass per kind of target yields the events from :meth:`events` and keeps its
    per-run state on the instance; the agent makes one per run."""

    def __init__(self, agent: LangChainAgent, input: RunAgentInput, stream: EventStream) -> None:
        self.agent = agent
        self.options = agent.options
        self.input = input
        self.stream = stream
        self.mapper = MessageMapper(stream, agent.options)
        fixed = frozenset((agent.config.get("configurable") or {}).keys())
        self.settings = model_settings(input.forwarded_props, fixed=fixed)
        """The run's model settings from its forwarded props (less the keys the agent's config sets)."""

    @abstractmethod
    def events(self) -> AsyncGenerator[Emitted, None]:
        """The run's events, in order (lists of events, as the adapter base takes them)."""

    def run_config(self, **configurable: object) -> RunnableConfig:
        """The agent's config for this run: the AG-UI run in ``configurable`` (where the middleware
        and :func:`frontend_tools` find it) next to the run's model settings (where configurable
        models and the graph's nodes find them), its ids in ``metadata``, and the ``run_id`` option."""
        input = self.input
        context = RunContext(
            input.thread_id,
            input.run_id,
            tuple(input.tools or ()),
            tuple(input.context or ()),
            forwarded_props=props_of(input.forwarded_props),
            model_settings=dict(self.settings),
        )
        extra: RunnableConfig = {
            "configurable": {**self.settings, CONFIG_KEY: context, **configurable},
            "metadata": {"agui_thread_id": input.thread_id, "agui_run_id": input.run_id},
        }
        run_id = self.options.resolve_run_id(input)
        if run_id:
            extra["run_id"] = _as_uuid(run_id)
        return merge_configs(self.agent.config, extra)

    def prompt_messages(self) -> list[BaseMessage]:
        """The transcript as LangChain messages, the application's context first as a system
        message (a graph gets the context from its middleware instead)."""
        messages = to_langchain(self.input.messages)
        if self.input.context:
            messages.insert(0, SystemMessage(content=context_text(self.input.context)))
        return messages


def _as_uuid(value: str) -> uuid.UUID:
    """LangChain run ids are UUIDs; any other string is turned into one, the same every time."""
    try:
        return uuid.UUID(value)
    except ValueError:
        return uuid.uuid5(uuid.NAMESPACE_URL, value)
