"""Error classes: each failure gets a class (the RUN_ERROR code) and a message that says what to do."""

from __future__ import annotations

import httpx
import pytest

from agui_widget.vocabulary._errors import ERROR_CLASSES, classify_exception, describe_exception, http_status


def provider_error(name: str, module: str, message: str = "failed", **attributes):
    """An exception shaped like a provider SDK's, without importing the SDK."""
    cls = type(name, (Exception,), {"__module__": module})
    exc = cls(message)
    for key, value in attributes.items():
        setattr(exc, key, value)
    return exc


class Response:
    def __init__(self, status_code: int) -> None:
        self.status_code = status_code


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (provider_error("AuthenticationError", "openai", "Incorrect API key provided", status_code=401), "authentication"),
        (provider_error("PermissionDeniedError", "anthropic._exceptions", "no access", status_code=403), "authentication"),
        (provider_error("APIStatusError", "somesdk", "nope", response=Response(401)), "authentication"),
        (provider_error("RateLimitError", "openai", "Rate limit reached for gpt-4.1", status_code=429), "rate_limit"),
        (provider_error("ResourceExhausted", "google.api_core.exceptions", "Quota exceeded"), "rate_limit"),
        (provider_error("ClientError", "x", "busy", status=429), "rate_limit"),
        (provider_error("APIConnectionError", "openai", "Connection error."), "network"),
        (provider_error("APITimeoutError", "openai", "Request timed out."), "network"),
        (httpx.ConnectError("[Errno 111] Connection refused"), "network"),
        (httpx.ReadTimeout("timed out"), "network"),
        (ConnectionResetError("reset by peer"), "network"),
        (TimeoutError(), "network"),
        (provider_error("InternalServerError", "openai", "bad gateway", status_code=502), "network"),
        (provider_error("NotFoundError", "openai", "The model `gpt-9` does not exist", status_code=404), "configuration"),
        (provider_error("BadRequestError", "anthropic", "max_tokens: must be positive", status_code=400), "configuration"),
        (ModuleNotFoundError("No module named 'langchain_openai'"), "configuration"),
        (ValueError("Unknown model: gpt-nine"), "configuration"),
        (ZeroDivisionError("division by zero"), "agent_error"),
        (KeyError("city"), "agent_error"),
    ],
)
def test_each_failure_gets_its_class(exc, expected):
    assert classify_exception(exc) == expected
    message, code = describe_exception(exc)
    assert code == expected and code in ERROR_CLASSES


def test_an_authentication_error_names_the_missing_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    message, _ = describe_exception(provider_error("AuthenticationError", "openai", "no key", status_code=401))
    assert message.startswith("Authentication failed: no key.") and "Set the OPENAI_API_KEY environment variable" in message


def test_each_class_says_what_to_do():
    advice = {
        "rate_limit": ("Rate limit:", "wait a little"),
        "network": ("Network error:", "reachable"),
        "configuration": ("Configuration problem:", "model name"),
        "agent_error": ("ZeroDivisionError:", ""),
    }
    cases = {
        "rate_limit": provider_error("RateLimitError", "openai", "slow down", status_code=429),
        "network": ConnectionRefusedError("refused"),
        "configuration": ModuleNotFoundError("No module named 'x'"),
        "agent_error": ZeroDivisionError("division by zero"),
    }
    for code, exc in cases.items():
        message, got = describe_exception(exc)
        start, hint = advice[code]
        assert got == code and message.startswith(start) and hint in message


def test_the_http_status_is_read_from_the_usual_places():
    assert http_status(provider_error("E", "m", status_code=418)) == 418
    assert http_status(provider_error("E", "m", response=Response(503))) == 503
    assert http_status(provider_error("E", "m", status="429")) is None  # not a number
    assert http_status(ValueError("x")) is None


def test_a_plain_message_mentioning_a_model_is_not_a_configuration_error():
    assert classify_exception(RuntimeError("the model answered twice")) == "agent_error"


def test_a_file_permission_error_is_not_taken_for_a_bad_key():
    assert classify_exception(PermissionError(13, "Permission denied", "/data/x.csv")) == "agent_error"
