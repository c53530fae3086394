"""The state fingerprint of the end-of-run ``check``: the kernel and a view compute the same one.

The kernel fingerprints its state (agui_widget/chat/_fingerprint.py), the view fingerprints the copy it
parsed from the kernel's JSON (js/src/mirror/fingerprint.ts). Any value must give both the same number,
or every run would end with a needless snapshot; different values must (almost surely) differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agui_widget.chat._fingerprint import canonical_json, fingerprint, js_number

from .node_module import NodeModule

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5),
    max_leaves=25,
)


@pytest.fixture(scope="module")
def view() -> Iterator[NodeModule]:
    module = NodeModule("src/mirror/fingerprint.ts")
    yield module
    module.close()


def as_the_view_gets_it(value: object) -> object:
    """What the kernel's message packer sends (the view parses this JSON)."""
    return json.loads(json.dumps(value, ensure_ascii=False))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(JSON_VALUES)
def test_the_kernel_and_the_view_fingerprint_any_json_value_alike(view: NodeModule, value: object) -> None:
    assert view.call("canonicalJson", as_the_view_gets_it(value)) == canonical_json(value)
    assert view.call("fingerprint", as_the_view_gets_it(value)) == fingerprint(value)


@pytest.mark.parametrize(
    "number",
    [
        0.0,
        -0.0,
        1.0,
        -1.5,
        0.1,
        1e21,
        1e-7,
        1.5e-7,
        1e16,
        123456789012345680000.0,
        5e-324,
        1.7976931348623157e308,
        0.000001,
        2.0**53,
        2.0**60,
    ],
)
def test_numbers_are_written_as_javascript_writes_them(view: NodeModule, number: float) -> None:
    assert js_number(number) == view.call("canonicalJson", number)


def test_what_the_packer_converts_is_fingerprinted_as_sent(view: NodeModule) -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    state = {"when": moment, "pair": (1, 2), 3: "int key"}
    sent = {"when": "2026-01-02T03:04:05Z", "pair": [1, 2], "3": "int key"}
    assert fingerprint(state) == view.call("fingerprint", sent)


def test_different_states_differ() -> None:
    assert fingerprint({"a": 1}) != fingerprint({"a": 2})
    assert fingerprint({"a": 1, "b": 2}) == fingerprint({"b": 2, "a": 1})
    assert fingerprint([1, 2]) != fingerprint([2, 1])
