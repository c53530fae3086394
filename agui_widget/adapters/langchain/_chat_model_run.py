"""A chat model's run: the transcript in, the answer streamed with ``astream``.

The chat's frontend tools are bound next to the model's own. A chat model runs no tools, so every
tool call it makes is left pending for the chat to answer. The run's call settings (``temperature``,
``max_tokens``, ``top_p``, ``stop`` from its forwarded props) are bound for the run, next to the
arguments the model is bound with (those win); ``model`` reaches a configurable model through the
config.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, cast

from langchain_core.runnables import Runnable, RunnableBinding

from .._base import Emitted, new_id
from ._kinds import is_configurable_model
from ._run import LangChainRun
from ._settings import call_settings
from ._steps import Steps
from ._tool_specs import spec_name, tool_specs

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


class ChatModelRun(LangChainRun):
    """One call of the model, as a "model" step (internal: a chat does not show it as progress)."""

    async def events(self) -> AsyncGenerator[Emitted, None]:
        model = self._with_settings(self._model_with_frontend_tools())
        messages = self.prompt_messages()
        steps = Steps(self.stream, self.options.emit_steps, internal=frozenset({"model"}))
        yield steps.start("model")
        fallback = new_id("msg")
        async with aclosing(model.astream(messages, self.run_config())) as chunks:  # type: ignore[type-var]  # LangChain annotates an AsyncIterator; it is an async generator
            async for chunk in chunks:
                yield self.mapper.chunk(chunk, fallback_id=fallback)
        yield self.mapper.end_all()
        yield steps.finish("model")

    def _with_settings(self, model: Runnable) -> Runnable:
        """The model with the run's call settings bound (a keyword the model is bound with already
        keeps its value)."""
        bound = model.kwargs if isinstance(model, RunnableBinding) else {}
        settings = call_settings(self.settings, taken=bound)
        if "model" in self.settings:
            base = model.bound if isinstance(model, RunnableBinding) else model
            if not is_configurable_model(base):
                self.agent.warn_once(
                    "agui-widget: the forwarded prop 'model' reaches a chat model only when it is configurable "
                    '(init_chat_model(configurable_fields=("model", ...))); %s runs as it is',
                    type(base).__name__,
                )
        return model.bind(**settings) if settings else model

    def _model_with_frontend_tools(self) -> Runnable:
        """The model with the run's frontend tools bound after its own (``bind_tools`` again with
        both lists, keeping the binding's other arguments and config). A frontend tool with the
        name of a bound tool is left out; a model without ``bind_tools`` runs without them."""
        model = self.agent.model
        binding = model if isinstance(model, RunnableBinding) else None
        base = binding.bound if binding is not None else model
        bound_tools = list((binding.kwargs.get("tools") if binding is not None else None) or ())
        bound_names = {name for name in map(spec_name, bound_tools) if name}
        frontend = self.input.tools or ()
        clashes = bound_names.intersection(tool.name for tool in frontend)
        if clashes:
            self.agent.warn_once(
                "agui-widget: frontend tools %s have the names of the model's tools; the model's tools win", sorted(clashes)
            )
        specs = tool_specs(frontend, exclude=bound_names)
        if not specs:
            return model
        try:
            kwargs = {k: v for k, v in (binding.kwargs.items() if binding is not None else ()) if k != "tools"}
            # a chat model, or init_chat_model's configurable stand-in, which passes bind_tools on
            rebound = cast("BaseChatModel", base).bind_tools([*bound_tools, *specs], **kwargs)
        except NotImplementedError:
            self.agent.warn_once(
                "agui-widget: %s has no bind_tools; the chat's frontend tools are not offered", type(base).__name__
            )
            return model
        if binding is not None and binding.config:
            rebound = rebound.with_config(binding.config)
        return rebound
