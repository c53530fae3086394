"""A Langroid model call's token usage, as AG-UI counts it: Langroid's ``LLMTokenUsage`` (on the
response's ``ChatDocument.metadata.usage``) mapped to a ``TokenUsage``, labelled with the model the
agent's LLM is configured with. A call that reports no tokens (a model that does not count them,
Langroid's zeros) adds nothing: "not reported" is not zero."""

from __future__ import annotations

from typing import Any

from ag_ui.core import TokenUsage
from langroid.agent.chat_agent import ChatAgent
from langroid.agent.chat_document import ChatDocument

try:  # ag-ui-protocol >= 1.0
    from ag_ui.core.token_usage import aggregate_token_usage
except ImportError:  # pragma: no cover
    aggregate_token_usage = None  # type: ignore[assignment]


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def call_usage(agent: ChatAgent, response: ChatDocument) -> TokenUsage | None:
    """The tokens one model call used, or None when Langroid has no count for it."""
    usage = getattr(response.metadata, "usage", None)
    prompt, completion = _count(getattr(usage, "prompt_tokens", 0)), _count(getattr(usage, "completion_tokens", 0))
    if not prompt and not completion:
        return None
    cached = _count(getattr(usage, "cached_tokens", 0))
    config = getattr(agent.llm, "config", None)
    model = getattr(config, "chat_model", None)
    return TokenUsage(
        model=model if isinstance(model, str) and model else None,
        input_tokens=prompt,
        output_tokens=completion,
        total_tokens=prompt + completion,
        cached_input_tokens=min(cached, prompt) or None,
    )


def with_call_usage(usage: list[TokenUsage] | None, entry: TokenUsage | None) -> list[TokenUsage] | None:
    """The run's usage so far with one more call's, summed per model."""
    if entry is None:
        return usage
    entries = [*(usage or ()), entry]
    return aggregate_token_usage(entries) if aggregate_token_usage is not None else entries
