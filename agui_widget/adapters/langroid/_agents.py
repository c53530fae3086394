"""The Langroid objects a ``LangroidAgent`` runs: what it was given, a copy of the agent per
conversation thread, the lock that makes runs on one object take turns, and the checks that fail
a run before it starts when the model cannot be called. Imports Langroid.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from langroid.agent.chat_agent import ChatAgent
from langroid.agent.task import Task
from langroid.utils.object_registry import ObjectRegistry

# -- what was given ----------------------------------------------------------------------------


def unwrap(obj: Any) -> tuple[Task | None, ChatAgent]:
    """The Task (if one was given) and the ChatAgent to run."""
    if isinstance(obj, Task):
        check_task(obj)
        return obj, obj.agent
    if isinstance(obj, ChatAgent):
        return None, obj
    hint = ""
    if type(obj).__name__.endswith("Config"):
        hint = " (for a config, create the agent first: langroid.ChatAgent(config))"
    raise TypeError(f"LangroidAgent takes a langroid.ChatAgent or a langroid.Task, not a {type(obj).__name__}{hint}")


def tasks_of(task: Task) -> list[Task]:
    """The task and its sub-tasks, depth first, each once."""
    seen: dict[int, Task] = {}

    def walk(t: Task) -> None:
        if id(t) in seen:
            return
        seen[id(t)] = t
        for sub in t.sub_tasks:
            walk(sub)

    walk(task)
    return list(seen.values())


def check_task(task: Task) -> None:
    """Refuse a task tree with an agent that is not a ChatAgent (it has no model to stream)."""
    for t in tasks_of(task):
        if not isinstance(t.agent, ChatAgent):
            raise TypeError(
                f"the Langroid task {t.name!r} runs a {type(t.agent).__name__}; "
                "LangroidAgent needs tasks whose agents are ChatAgents"
            )


# -- one agent per conversation thread ---------------------------------------------------------


_locks: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()


def lock_for(agent: Any) -> asyncio.Lock:
    """Runs on one agent object take turns (its history, callbacks and tools are per run)."""
    lock = _locks.get(agent)
    if lock is None:
        lock = _locks[agent] = asyncio.Lock()
    return lock


def clone_agent(agent: ChatAgent, index: int) -> ChatAgent:
    """A copy of ``agent`` for another thread, with its tools and handlers intact.

    ``ChatAgent.clone`` shares the tool sets with the original (enabling a tool on the copy would
    enable it on both) and loses the handlers ``enable_message`` created from a tool's ``handle``,
    ``handle_async`` or ``response`` methods, which live on the original instance. It also builds
    the LLM from the config, replacing a custom LLM object installed on the original. Frontend
    tools that a run of the original has installed at this moment are not copied.
    """
    new = agent.clone(index)
    run_only = {name for name, cls in agent.llm_tools_map.items() if getattr(cls, "__agui_frontend__", False)}
    for name in ("llm_tools_map", "llm_functions_map"):
        setattr(new, name, {k: v for k, v in getattr(agent, name).items() if k not in run_only})
    for name in (
        "llm_tools_known",
        "llm_tools_handled",
        "llm_tools_usable",
        "llm_functions_handled",
        "llm_functions_usable",
        "disable_strict_tools_set",
    ):
        setattr(new, name, set(getattr(agent, name)) - run_only)
    new._update_tool_instructions()
    for tool_class in list(new.llm_tools_map.values()):
        new._get_tool_list(tool_class)  # creates the handlers the copy lacks, bound to the copy
    new.system_message = agent.system_message
    new.user_message = agent.user_message
    if agent.llm is not None and new.config.llm is not None and type(new.llm) is not type(agent.llm):
        new.llm = type(agent.llm)(new.config.llm)
    return new


def forget_agent(agent: ChatAgent) -> None:
    """Drop a thread's copy from Langroid's object registry, so it can be freed."""
    ObjectRegistry.remove(agent.id)


# -- ready to call its model -------------------------------------------------------------------


def check_ready(agent: ChatAgent) -> None:
    """Fail before the run starts, saying what to do, when the agent cannot call its model."""
    if agent.llm is None:
        raise RuntimeError(
            f"the Langroid agent {agent.config.name!r} has no LLM (its config has llm=None); "
            "give its ChatAgentConfig an llm, e.g. langroid.language_models.OpenAIGPTConfig(chat_model=...)"
        )
    _check_api_key(agent)


def _check_api_key(agent: ChatAgent) -> None:
    """Fail fast, and say what to do, when an OpenAI model has no key (rather than retrying a 401)."""
    try:
        from langroid.language_models.openai_gpt import OpenAIGPT
        from langroid.language_models.provider_params import DUMMY_API_KEY
    except ImportError:
        return
    llm = agent.llm
    if type(llm) is not OpenAIGPT:
        return
    config = llm.config
    if getattr(config, "api_key_provider", None) is not None or getattr(llm, "api_base", None):
        return
    if getattr(llm, "api_key", None) == DUMMY_API_KEY and (llm.is_openai_chat_model() or "/" not in llm.chat_model_orig):
        raise PermissionError(
            "no OpenAI API key: the agent's OpenAIGPTConfig was created while OPENAI_API_KEY was unset "
            "(the key is read when the config is created, so create the agent again after setting it)"
        )
