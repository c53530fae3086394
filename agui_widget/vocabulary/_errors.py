"""Turning exceptions into messages a person can act on.

Every failure falls into one class, used as the RUN_ERROR ``code`` the view shows and hooks see:
``authentication`` (the key is missing or refused), ``rate_limit`` (the provider says slow down or
the quota is used up), ``network`` (the server cannot be reached or took too long),
``configuration`` (a package, model name or setting is wrong) and ``agent_error`` (the agent
itself failed). The class is read from the exception's class name, module and HTTP status code
(``status_code``, ``status``, ``response.status_code``), so no provider SDK is imported here.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ag_ui.core import BaseEvent

ErrorClass = Literal["authentication", "rate_limit", "network", "configuration", "agent_error"]
ERROR_CLASSES: tuple[ErrorClass, ...] = ("authentication", "rate_limit", "network", "configuration", "agent_error")

_KEY_VARIABLES = (
    ("openai", "OPENAI_API_KEY"),
    ("anthropic", "ANTHROPIC_API_KEY"),
    ("gemini", "GEMINI_API_KEY"),
    ("google", "GOOGLE_API_KEY"),
    ("groq", "GROQ_API_KEY"),
    ("mistral", "MISTRAL_API_KEY"),
)
_KEY_HINT = r"(?i)api[_ ]?key|authenticat|unauthori[sz]ed|forbidden|\b401\b|invalid x-api-key"
_NAMED_VARIABLE = r"\b([A-Z][A-Z0-9]*_API_KEY)\b"
_RATE_HINT = r"(?i)rate[ _-]?limit|too many requests|\b429\b|quota|resource[ _]?exhausted|overloaded"
_NETWORK_HINT = (
    r"(?i)connect(ion)? ?(error|refused|reset|aborted)|name or service not known|timed? ?out|unreachable"
    r"|remote ?protocol ?error|getaddrinfo|temporary failure in name resolution"
)
_NETWORK_CLASSES = (
    ConnectionError,
    TimeoutError,
)
_CONFIG_HINT = (
    r"(?i)model[_ ]?not[_ ]?found|model\b[^.]{0,60}\b(does not exist|not found)|unknown model|no such model|not installed|no module named"
    r"|invalid (model|url|base[_ ]?url)|not configured|missing (setting|config)"
)


def describe_exception(exc: BaseException) -> tuple[str, ErrorClass]:
    """A (message, code) pair for RUN_ERROR: what went wrong and what to do about it."""
    text = str(exc) or type(exc).__name__
    error_class = classify_exception(exc)
    if error_class == "authentication":
        variable = _missing_key_variable(_haystack(exc))
        advice = (
            f"Set the {variable} environment variable (or pass the key to the model) and run again."
            if variable
            else "Check the API key your model uses and run again."
        )
        return f"Authentication failed: {text}. {advice}", "authentication"
    if error_class == "rate_limit":
        return (
            f"Rate limit: {text}. The provider refused more requests for now: wait a little and send again, "
            "or check your plan's quota.",
            "rate_limit",
        )
    if error_class == "network":
        return f"Network error: {text}. Check that the model's server is reachable from this kernel.", "network"
    if error_class == "configuration":
        return (
            f"Configuration problem: {type(exc).__name__}: {text}. Check the model name, its settings and that "
            "the packages it needs are installed.",
            "configuration",
        )
    return f"{type(exc).__name__}: {text}", "agent_error"


def classify_exception(exc: BaseException) -> ErrorClass:
    """Which of :data:`ERROR_CLASSES` an exception belongs to (status code first, then names)."""
    status = http_status(exc)
    if status in (401, 403):
        return "authentication"
    if status == 429:
        return "rate_limit"
    if status in (408, 502, 503, 504):
        return "network"
    if status in (400, 404, 422):
        return "configuration" if not re.search(_KEY_HINT, _haystack(exc)) else "authentication"
    names = " ".join(f"{k.__module__}.{k.__name__}" for k in type(exc).__mro__[:-1]).lower()
    haystack = _haystack(exc)
    if "authentication" in names or "permissiondenied" in names or re.search(_KEY_HINT, haystack):
        return "authentication"
    if "ratelimit" in names or "resourceexhausted" in names or re.search(_RATE_HINT, haystack):
        return "rate_limit"
    if (
        isinstance(exc, _NETWORK_CLASSES)
        or any(part in names for part in ("connecterror", "connectionerror", "timeout", "networkerror", "apiconnection"))
        or re.search(_NETWORK_HINT, haystack)
    ):
        return "network"
    if isinstance(exc, ImportError) or "notfounderror" in names or "configerror" in names or re.search(_CONFIG_HINT, haystack):
        return "configuration"
    return "agent_error"


def http_status(exc: BaseException) -> int | None:
    """The HTTP status an SDK or HTTP client put on the exception, if any."""
    for candidate in (
        getattr(exc, "status_code", None),
        getattr(exc, "status", None),
        getattr(getattr(exc, "response", None), "status_code", None),
        getattr(exc, "http_status", None),
    ):
        if isinstance(candidate, int) and 100 <= candidate <= 599:
            return candidate
    return None


def _haystack(exc: BaseException) -> str:
    return f"{type(exc).__module__}.{type(exc).__name__} {exc}"


def _missing_key_variable(haystack: str) -> str | None:
    named = re.search(_NAMED_VARIABLE, haystack.upper())
    if named:
        return named.group(1)
    lowered = haystack.lower()
    for provider, variable in _KEY_VARIABLES:
        if provider in lowered and not os.environ.get(variable):
            return variable
    return None


class ProtocolError(Exception):
    """A stream broke a rule a client must reject; the message names the rule and the id.

    ``delivered`` holds the events that were already applied and delivered by the same
    ``consume()`` call before the offending one (chunk expansion can yield several).
    """

    def __init__(self, message: str, *, delivered: list[BaseEvent] | None = None) -> None:
        super().__init__(message)
        self.delivered: list[BaseEvent] = list(delivered or ())
