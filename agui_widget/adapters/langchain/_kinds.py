"""What kind of LangChain object a target is, and what its input takes.

Three kinds run differently: a chat model, a LangGraph graph, any other Runnable. A binding
around a graph (``graph.with_config(...)``) is unwrapped, its config kept; a chat model keeps its
binding (the tools bound to it).
"""

from __future__ import annotations

from typing import Literal

from langchain_core.language_models import BaseChatModel, BaseLanguageModel
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig, RunnableSequence
from langchain_core.runnables.config import merge_configs
from langchain_core.runnables.configurable import DynamicRunnable
from langgraph.pregel import Pregel

Kind = Literal["chat_model", "graph", "runnable"]


def classify(target: object) -> tuple[Kind, Runnable, RunnableConfig]:
    """(kind, the object to run, config carried by a binding around it)."""
    config: RunnableConfig = {}
    inner: object = target
    while isinstance(inner, RunnableBinding):
        if isinstance(inner.bound, BaseChatModel):
            return "chat_model", inner, {}
        if isinstance(inner.bound, Pregel) and not inner.kwargs:
            config = merge_configs(inner.config or {}, config)
            inner = inner.bound
            continue
        break
    if isinstance(inner, Pregel):
        return "graph", inner, config
    if isinstance(inner, Runnable):
        is_model = isinstance(inner, BaseChatModel) or is_configurable_model(inner)
        return ("chat_model" if is_model else "runnable"), inner, {}
    from .. import ACCEPTED

    raise TypeError(
        f"LangChainAgent takes a chat model, a Runnable or a LangGraph graph, not {type(target).__name__}.\n\n" + ACCEPTED
    )


def is_configurable_model(obj: object) -> bool:
    """``init_chat_model()`` without a fixed model: a Runnable that stands for a chat model."""
    return any(cls.__name__ == "_ConfigurableModel" and cls.__module__.startswith("langchain") for cls in type(obj).__mro__)


def starts_with_a_model(runnable: Runnable) -> bool:
    """A chain like ``model | parser`` takes the message list itself, not a dict; so does a model
    made configurable (``configurable_fields`` / ``configurable_alternatives``: its default is one)."""
    step: object = runnable
    for _ in range(20):
        if isinstance(step, RunnableSequence):
            step = step.first
        elif isinstance(step, RunnableBinding):
            step = step.bound
        elif isinstance(step, DynamicRunnable):
            step = step.default
        else:
            break
    return isinstance(step, BaseLanguageModel) or is_configurable_model(step)


def input_keys(runnable: Runnable) -> frozenset[str]:
    """The keys of the runnable's input schema (none when it has no object schema)."""
    try:
        schema = runnable.get_input_jsonschema()
    except Exception:
        return frozenset()
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return frozenset(properties) if isinstance(properties, dict) else frozenset()
