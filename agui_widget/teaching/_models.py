"""Which model a lesson or a notebook talks to, chosen by environment variables.

A lesson runs everywhere: on a laptop without a key (an offline stand-in), with an OpenAI or
Anthropic key, or against a local OpenAI-compatible server (Ollama, llama.cpp's ``llama-server``,
LM Studio, vLLM) that one machine in a classroom runs for everyone. The notebook's code stays the
same; the environment picks:

========================  =====================================================================
``AGUI_MODEL_BASE_URL``   an OpenAI-compatible server, e.g. ``http://localhost:11434/v1``
``AGUI_MODEL``            the model's name: required with a base URL (``llama3.1``), else a
                          LangChain ``provider:model`` string
``AGUI_MODEL_API_KEY``    the server's key, if it wants one
``AGUI_LANGROID_MODEL``   any Langroid model string (``ollama/llama3.1``), for Langroid only
``OPENAI_API_KEY``        OpenAI (``gpt-4o-mini``; ``gpt-4.1-mini`` for Langroid)
``ANTHROPIC_API_KEY``     Anthropic (``claude-3-5-haiku-latest``), LangChain only
========================  =====================================================================

Never a real model under pytest: the test suite runs the stand-ins. Nothing here imports a
framework until a function is called, so ``import agui_widget`` stays fast.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langroid.language_models import OpenAIGPTConfig

__all__ = ["langroid_model", "pick_model"]

NO_KEY = "not-needed"
"""The API key sent to a local server that wants none: OpenAI clients refuse an empty one."""

LOCAL_TIMEOUT = 120
"""Seconds Langroid waits on a local server: a model loading on first use takes a while."""

_LANGCHAIN_DEFAULTS = (
    ("OPENAI_API_KEY", "openai", "openai:gpt-4o-mini"),
    ("ANTHROPIC_API_KEY", "anthropic", "anthropic:claude-3-5-haiku-latest"),
)


def pick_model(environ: Mapping[str, str] | None = None) -> BaseChatModel | None:
    """A LangChain chat model chosen by environment variables, or None for the offline stand-in.

    ``AGUI_MODEL_BASE_URL`` (with ``AGUI_MODEL``) gives a ``ChatOpenAI`` on that server; else
    ``OPENAI_API_KEY`` or ``ANTHROPIC_API_KEY`` gives ``init_chat_model(AGUI_MODEL or a small
    default)``; else None. None under pytest, and None (with a one-line message saying what to
    install) when the provider's package is missing. A base URL without ``AGUI_MODEL`` is an error:
    a server may hold many models, and guessing one would hide the mistake.
    """
    env = os.environ if environ is None else environ
    if "PYTEST_CURRENT_TEST" in env:
        return None
    name = _get(env, "AGUI_MODEL")
    base_url = _get(env, "AGUI_MODEL_BASE_URL")
    if base_url:
        model = _required_name(name, base_url)
        try:
            from langchain_openai import ChatOpenAI
            from pydantic import SecretStr
        except ImportError:
            print(
                f"AGUI_MODEL_BASE_URL is set, but langchain-openai is not installed (pip install langchain-openai); {_FALLBACK}"
            )
            return None
        # The key is always given, so an OPENAI_API_KEY in the environment never goes to this server.
        # stream_usage: ChatOpenAI asks only api.openai.com for token counts while streaming; local
        # servers report them too, and the chat shows them on RUN_FINISHED.
        return ChatOpenAI(
            base_url=_base_url(base_url),
            model=model,
            api_key=SecretStr(_get(env, "AGUI_MODEL_API_KEY") or NO_KEY),
            stream_usage=True,
        )
    for variable, provider, default in _LANGCHAIN_DEFAULTS:
        key = _get(env, variable)
        if not key:
            continue
        model = name or default
        try:
            from langchain.chat_models import init_chat_model

            if model.startswith(f"{provider}:"):
                return init_chat_model(model, api_key=key)
            return init_chat_model(model)  # another provider: its own key variable applies
        except ImportError as exc:
            print(f"{variable} is set, but {_what_to_install(exc)}; {_FALLBACK}")
            return None
    return None


def langroid_model(environ: Mapping[str, str] | None = None) -> OpenAIGPTConfig | None:
    """A Langroid model config chosen by environment variables, or None for the scripted stand-in.

    ``AGUI_LANGROID_MODEL`` (any model string Langroid knows) comes first, being Langroid's own;
    then ``AGUI_MODEL_BASE_URL`` (with ``AGUI_MODEL``: the same server as :func:`pick_model`);
    then ``OPENAI_API_KEY`` (``gpt-4.1-mini``); else None, and always None under pytest. Langroid's
    response cache is off (``cache_config=None``): a lesson shows the model streaming, and a cached
    answer would arrive in one piece.
    """
    env = os.environ if environ is None else environ
    if "PYTEST_CURRENT_TEST" in env:
        return None
    langroid_name = _get(env, "AGUI_LANGROID_MODEL")
    base_url = _get(env, "AGUI_MODEL_BASE_URL")
    openai_key = _get(env, "OPENAI_API_KEY")
    if not (langroid_name or base_url or openai_key):
        return None
    name = _required_name(_get(env, "AGUI_MODEL"), base_url) if base_url and not langroid_name else ""
    try:
        from ..adapters.langroid._tiktoken import seed_tiktoken_cache

        seed_tiktoken_cache()  # an offline machine: `import langroid` needs tiktoken's files
        from langroid.language_models import OpenAIGPTConfig
    except ImportError as exc:
        fix = _what_to_install(exc, "'agui-widget[langroid]'")
        print(f"A model is configured, but {fix}; {_FALLBACK}")
        return None
    if langroid_name:
        return OpenAIGPTConfig(chat_model=langroid_name, cache_config=None)
    if base_url:
        # The model's own name and the server as api_base: Langroid's "local/host:port/v1" form
        # would send "local/host:port/v1" as the model name, which Ollama and vLLM refuse. The key
        # is always given, so an OPENAI_API_KEY in the environment never goes to this server; no
        # seed, as Langroid does for its local/ models.
        return OpenAIGPTConfig(
            chat_model=name,
            api_base=_base_url(base_url),
            api_key=_get(env, "AGUI_MODEL_API_KEY") or NO_KEY,
            cache_config=None,
            seed=None,
            timeout=LOCAL_TIMEOUT,
        )
    return OpenAIGPTConfig(chat_model="gpt-4.1-mini", api_key=openai_key, cache_config=None)


_FALLBACK = "using the offline stand-in."


def _get(env: Mapping[str, str], name: str) -> str:
    return (env.get(name) or "").strip()


def _base_url(url: str) -> str:
    """``teacher-host:11434/v1`` works as well as ``http://teacher-host:11434/v1/``."""
    url = url.rstrip("/")
    return url if "://" in url else f"http://{url}"


def _required_name(name: str, base_url: str) -> str:
    if not name:
        raise ValueError(
            f"AGUI_MODEL_BASE_URL is set ({base_url}), but AGUI_MODEL is not: set AGUI_MODEL to the name of a "
            "model that server serves (e.g. AGUI_MODEL=llama3.1 for Ollama; GET <base URL>/models lists them)."
        )
    return name


def _what_to_install(exc: ImportError, package: str | None = None) -> str:
    """The import error as a fix: LangChain's own messages already name the pip command."""
    message = str(exc)
    if "pip install" in message:
        return message.rstrip(".")
    missing = package or (exc.name or "the package").split(".")[0].replace("_", "-")
    return f"{message} (pip install {missing})"
