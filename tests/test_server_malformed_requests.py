"""agui_widget.server given run requests it cannot take: bytes that are not UTF-8, JSON nested
deeper than the parser should go, bodies that are not JSON, under any content type.

Each gets a 4xx whose JSON ``detail`` says why, before any stream starts: never a 5xx, a dropped
connection or a traceback in the server's log.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agui_widget.server import create_app
from agui_widget.server._request import MAX_JSON_DEPTH

from .live_server import live_server
from .support import make_input, text_of
from .test_server import body, parse_sse
from .test_server_faults import BASE_URL, echo, run_body

CONTENT_TYPES = [
    None,
    "application/json",
    "application/json; charset=utf-8",
    "application/json; charset=latin-1",
    "application/ld+json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/octet-stream",
    "not a content type",
]

VALID = run_body("hi")
JSON = "application/json"
HI_AT = VALID.index(b"hi") + 1
"""Where a byte put between the letters of "hi" lands."""

APP = create_app({"echo": echo})


def post(content: bytes, content_type: str | None, path: str = "/agents/echo", app: Any = APP) -> httpx.Response:
    """POST ``content`` to ``app`` in this process (an exception in the app fails the test)."""

    async def send() -> httpx.Response:
        headers = {} if content_type is None else {"content-type": content_type}
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as client:
            return await client.post(path, content=content, headers=headers)

    return asyncio.run(send())


def assert_refused(response: httpx.Response) -> str:
    """``response`` is a 4xx with a JSON reason; returns the reason."""
    assert 400 <= response.status_code < 500, f"{response.status_code}: {response.text[:300]}"
    assert response.headers["content-type"] == "application/json"
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail
    return detail


def depth_of(value: Any) -> int:
    """How many arrays and objects ``value`` holds inside one another (without recursing)."""
    deepest = 0
    pending = [(value, 1)]
    while pending:
        item, level = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, level)
            pending.extend((child, level + 1) for child in children)
    return deepest


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """The valid run body with a few bytes put in or written over somewhere."""
    start = draw(st.integers(0, len(VALID)))
    end = draw(st.integers(start, min(len(VALID), start + 4)))
    return VALID[:start] + draw(st.binary(max_size=6)) + VALID[end:]


@settings(max_examples=250, derandomize=True, deadline=None)
@given(st.one_of(st.just(VALID), st.binary(max_size=300), mutated()), st.sampled_from(CONTENT_TYPES))
@example(content=b"\xff", content_type=JSON)
@example(content=b"[" * 100_000, content_type=None)
def test_any_bytes_under_any_content_type_get_a_stream_or_a_json_4xx(content: bytes, content_type: str | None) -> None:
    response = post(content, content_type)
    if response.status_code == 200:
        assert response.headers["content-type"].startswith("text/event-stream")
        assert text_of(parse_sse(response.text)) == "echo: hi"
    else:
        assert_refused(response)
    if content == VALID and content_type is not None and "json" in content_type:
        assert response.status_code == 200


# Strings that a bracket counter which forgot about strings or escapes would count wrong.
TRICKY_TEXT = st.text(alphabet='[]{}"\\ax\u00e9\U0001f600', max_size=12)
LEAVES = st.one_of(st.none(), st.integers(), st.booleans(), TRICKY_TEXT, st.lists(TRICKY_TEXT, max_size=3))
OPENERS = st.lists(st.sampled_from("[{"), min_size=1, max_size=3)


def nested(leaf: Any, depth: int, openers: list[str], key: str) -> str:
    """JSON text of ``leaf`` inside ``depth`` arrays and objects, innermost first in the order
    ``openers`` repeats (written out directly: ``json.dumps`` itself recurses once per level)."""
    kinds = [openers[level % len(openers)] for level in range(depth)]
    member = json.dumps(key, ensure_ascii=False) + ": "
    opening = "".join("[" if kind == "[" else "{" + member for kind in reversed(kinds))
    closing = "".join("]" if kind == "[" else "}" for kind in kinds)
    return opening + json.dumps(leaf, ensure_ascii=False) + closing


@settings(max_examples=120, derandomize=True, deadline=None)
@given(
    depth=st.one_of(st.integers(0, 3 * MAX_JSON_DEPTH), st.sampled_from([MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, 100_000])),
    openers=OPENERS,
    leaf=LEAVES,
    key=TRICKY_TEXT,
    where=st.sampled_from(["state", "forwardedProps", "whole"]),
    closed=st.booleans(),
    content_type=st.sampled_from([JSON, "application/json; charset=utf-8", "application/ld+json"]),
)
@example(depth=MAX_JSON_DEPTH - 1, openers=["{"], leaf='"]', key="]", where="state", closed=True, content_type=JSON)
@example(depth=MAX_JSON_DEPTH, openers=["["], leaf="[", key="", where="state", closed=True, content_type=JSON)
@example(depth=MAX_JSON_DEPTH - 2, openers=["["], leaf=["\\"], key="", where="state", closed=True, content_type=JSON)
def test_json_nested_up_to_the_limit_runs_and_deeper_gets_a_422_naming_it(
    depth: int, openers: list[str], leaf: Any, key: str, where: str, closed: bool, content_type: str | None
) -> None:
    value = nested(leaf, depth, openers, key)
    if where == "whole":
        text, levels = value, depth + depth_of(leaf)
    else:
        rest = json.dumps({name: item for name, item in body(make_input("hi")).items() if name != where})
        text, levels = f'{rest[:-1]}, "{where}": {value}}}', 1 + depth + depth_of(leaf)
    if not closed:
        text = text.rstrip("]}")  # the brackets opened, never closed: what a parser recurses on
    response = post(text.encode(), content_type)
    if levels > MAX_JSON_DEPTH:
        assert response.status_code == 422
        assert f"at most {MAX_JSON_DEPTH} levels" in assert_refused(response)
    elif closed and where != "whole":
        assert response.status_code == 200 and text_of(parse_sse(response.text)) == "echo: hi"
    else:
        assert_refused(response)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (VALID.replace(b"hi", b"h\xffi"), f"byte {HI_AT:,}: invalid start byte"),
        (VALID.replace(b"hi", b"h\xed\xa0\xbdi"), f"byte {HI_AT:,}: invalid continuation byte"),  # a surrogate, UTF-8 encoded
        (VALID.decode().encode("utf-16"), "byte 0: invalid start byte"),  # JSON travels as UTF-8 only
        (b"\x80", "byte 0: invalid start byte"),
    ],
)
@pytest.mark.parametrize("path", ["/", "/agents/echo"])
def test_a_body_that_is_not_utf8_gets_a_400_naming_the_byte(content: bytes, reason: str, path: str) -> None:
    response = post(content, JSON, path, create_app(echo) if path == "/" else APP)
    assert response.status_code == 400
    assert "not UTF-8" in assert_refused(response) and reason in response.json()["detail"]


def test_a_number_python_will_not_convert_gets_a_400() -> None:
    content = VALID.replace(b'"state": {}', b'"state": {"n": ' + b"7" * 5000 + b"}")
    assert content != VALID
    response = post(content, JSON)
    assert response.status_code == 400 and "cannot be read as JSON" in assert_refused(response)


class Errors(logging.Handler):
    """Keeps the records of ERROR and above that reach it."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_a_real_server_answers_deep_nesting_and_bytes_that_are_not_utf8() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    not_utf8 = VALID.replace(b"hi", b"h\xff\xfei")
    errors = Errors()
    with live_server(create_app(echo)) as url:
        logging.getLogger("uvicorn.error").addHandler(errors)  # after start: uvicorn's logging setup is done
        try:
            with httpx.Client(base_url=url, timeout=10, headers={"content-type": JSON}) as client:
                nested_answer = client.post("/", content=deep)
                nested_in_state = client.post("/", content=VALID.replace(b'"state": {}', b'"state": ' + deep))
                utf8_answer = client.post("/", content=not_utf8)
                fine = client.post("/", content=VALID)
                marked = client.post("/", content=b"\xef\xbb\xbf" + VALID)  # UTF-8 with a byte order mark
        finally:
            logging.getLogger("uvicorn.error").removeHandler(errors)
    assert nested_answer.status_code == 422 and f"at most {MAX_JSON_DEPTH} levels" in assert_refused(nested_answer)
    assert nested_in_state.status_code == 422 and f"at most {MAX_JSON_DEPTH} levels" in assert_refused(nested_in_state)
    assert utf8_answer.status_code == 400 and "not UTF-8" in assert_refused(utf8_answer)
    for answer in (fine, marked):
        assert answer.status_code == 200 and text_of(parse_sse(answer.text)) == "echo: hi"
    assert not errors.records, [record.getMessage() for record in errors.records]
