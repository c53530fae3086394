"""Turning exceptions into messages a person can act on."""

from __future__ import annotations

import os
import re

_KEY_VARIABLES = (
    ("openai", "OPENAI_API_KEY"),
    ("anthropic", "ANTHROPIC_API_KEY"),
    ("gemini", "GEMINI_API_KEY"),
    ("google", "GOOGLE_API_KEY"),
    ("groq", "GROQ_API_KEY"),
    ("mistral", "MISTRAL_API_KEY"),
)
_KEY_HINT = re.compile(r"api[_ ]?key|authenticat|unauthori[sz]ed|\b401\b|invalid x-api-key", re.IGNORECASE)
_NAMED_VARIABLE = re.compile(r"\b([A-Z][A-Z0-9]*_API_KEY)\b")
_NETWORK_HINT = re.compile(
    r"connect(ion)? (error|refused|reset)|name or service not known|timed? ?out|unreachable", re.IGNORECASE
)


def describe_exception(exc: BaseException) -> tuple[str, str]:
    """A (message, code) pair for RUN_ERROR: what went wrong and what to do about it."""
    text = str(exc) or type(exc).__name__
    where = f"{type(exc).__module__}.{type(exc).__name__}".lower()
    haystack = f"{where} {text}"
    if _KEY_HINT.search(haystack):
        variable = _missing_key_variable(haystack)
        advice = (
            f"Set the {variable} environment variable (or pass the key to the model) and run again."
            if variable
            else "Check the API key your model uses and run again."
        )
        return f"Authentication failed: {text}. {advice}", "authentication"
    if _NETWORK_HINT.search(haystack):
        return f"Network error: {text}. Check that the model's server is reachable from this kernel.", "network"
    return f"{type(exc).__name__}: {text}", "agent_error"


def _missing_key_variable(haystack: str) -> str | None:
    named = _NAMED_VARIABLE.search(haystack.upper())
    if named:
        return named.group(1)
    lowered = haystack.lower()
    for provider, variable in _KEY_VARIABLES:
        if provider in lowered and not os.environ.get(variable):
            return variable
    return None
