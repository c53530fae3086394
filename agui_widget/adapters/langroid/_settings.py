"""The model settings a run takes from ``RunAgentInput.forwardedProps``, applied to one agent for
the run and taken off again, however the run ends.

Five keys are read (every other forwarded prop is left to the tool handlers: ``tool_context().input``
has them all); a value of the wrong type is left out with a warning, and ``None`` means not set.

- ``model``: the model the agent's LLM asks its endpoint for (``llm.config.chat_model``); the
  endpoint, client and key stay the agent's, so it names a model of the same provider. Langroid's
  notion of the model (``llm.chat_model_orig``: context length, the parameters it takes) follows,
  with the configured provider prefix kept.
- ``temperature``: ``llm.config.temperature``.
- ``max_tokens``: the agent's ``config.llm.max_output_tokens``, what ``ChatAgent`` asks for (less
  when the context is short).
- ``top_p``, ``stop``: ``llm.config.params`` (``OpenAICallParams``), for an LLM whose config has
  them (``OpenAIGPTConfig`` and its kind); other LLMs take neither.

Langroid sends ``params`` over the config's own fields, so a ``temperature`` or ``max_tokens`` the
agent's ``params`` set is overridden there too. Nothing is changed in place: the run puts copies of
the LLM's config and of the agent's config on the agent, and the originals back afterwards.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from .._model_settings import MODEL_SETTINGS, model_settings
from ._patches import Patches

log = logging.getLogger("agui_widget")


def apply_model_settings(agent: Any, settings: Mapping[str, Any], patches: Patches) -> None:
    """Put ``settings`` on ``agent`` (a ChatAgent) for the run; ``patches.restore()`` takes them off."""
    llm = getattr(agent, "llm", None)
    if llm is None or not settings:
        return
    llm_config = llm.config
    update: dict[str, Any] = {}
    if "model" in settings:
        update["chat_model"] = settings["model"]
    if "temperature" in settings:
        update["temperature"] = settings["temperature"]
    params_update = _params_update(llm_config, settings)
    if params_update:
        from langroid.language_models.openai_gpt import OpenAICallParams

        update["params"] = (llm_config.params or OpenAICallParams()).model_copy(update=params_update)
    if update:
        patches.set(llm, "config", llm_config.model_copy(update=update))
    if "model" in settings:
        configured, original = llm_config.chat_model, getattr(llm, "chat_model_orig", None)
        if configured and isinstance(original, str) and original.endswith(configured):
            patches.set(llm, "chat_model_orig", original[: len(original) - len(configured)] + settings["model"])
    agent_llm = getattr(agent.config, "llm", None)
    if "max_tokens" in settings and agent_llm is not None:
        llm_copy = agent_llm.model_copy(update={"max_output_tokens": settings["max_tokens"]})
        patches.set(agent, "config", agent.config.model_copy(update={"llm": llm_copy}))
    missed = [key for key in ("top_p", "stop") if key in settings and key not in params_update]
    if missed:
        log.debug("agui-widget: %s takes no call params; forwarded %s not used", type(llm).__name__, missed)


def _params_update(llm_config: Any, settings: Mapping[str, Any]) -> dict[str, Any]:
    """What the run changes in the LLM's ``params``: ``top_p`` and ``stop``, and the temperature and
    maximum the params already set (they would win over the run's otherwise)."""
    if "params" not in type(llm_config).model_fields:
        return {}
    params = llm_config.params
    update = {key: settings[key] for key in ("top_p", "stop") if key in settings}
    for key in ("temperature", "max_tokens"):
        if key in settings and params is not None and getattr(params, key, None) is not None:
            update[key] = settings[key]
    return update


__all__ = ["MODEL_SETTINGS", "apply_model_settings", "model_settings"]
