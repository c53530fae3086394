"""The state's JSON Patch at the cost of the change: a diff that any RFC 6902 implementation
applies to the new state, an apply that never touches the old one, and copies that share nothing
with what their owner can change. Generated states, seeded, shrunk to the smallest failing case."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from agui_widget.vocabulary._state_patch import apply_patch, diff, json_copy, mirror

keys = st.sampled_from(["a", "b", "c", "a/b", "t~1", "", "ünï", "0"])
leaves = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(-2, 2, allow_nan=False), st.text(max_size=4))
states = st.recursive(
    leaves, lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(keys, inner, max_size=5)), max_leaves=30
)


def containers(value: Any) -> list[int]:
    found: list[int] = []
    if isinstance(value, dict):
        found.append(id(value))
        for item in value.values():
            found.extend(containers(item))
    elif isinstance(value, list):
        found.append(id(value))
        for item in value:
            found.extend(containers(item))
    return found


def typed(value: Any) -> Any:
    """The value with each leaf's JSON type beside it (so True, 1 and 1.0 differ)."""
    if isinstance(value, dict):
        return {key: typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [typed(item) for item in value]
    return (type(value).__name__, value)


@seed(20261127)
@settings(max_examples=400, deadline=None)
@given(states, states)
def test_the_diff_turns_the_old_state_into_the_new_with_jsonpatch_itself(old: Any, new: Any) -> None:
    before = copy.deepcopy(old)
    patch = diff(old, new)
    assert jsonpatch.apply_patch(copy.deepcopy(old), patch) == new  # any RFC 6902 client gets there
    assert apply_patch(old, patch) == new
    assert old == before  # neither the diff nor the apply touched the old state


@seed(20261127)
@settings(max_examples=300, deadline=None)
@given(states, states)
def test_a_mirror_equals_the_new_state_and_shares_no_container_with_it(old: Any, new: Any) -> None:
    old_copy = json_copy(old)
    patch = [{**op, "value": json_copy(op["value"])} if "value" in op else op for op in diff(old, new)]
    moved = apply_patch(old, patch)
    mirrored = mirror(moved, old, old_copy)
    assert typed(mirrored) == typed(moved)
    assert not set(containers(mirrored)) & set(containers(moved))
    assert not set(containers(mirrored)) & set(containers(old))


def test_a_one_key_change_is_one_operation_and_the_rest_is_shared() -> None:
    state = {f"key{i:05}": {"text": "x" * 50, "tags": ["a", "b"], "done": i % 2 == 0} for i in range(2000)}
    changed = {**state, "key00042": "changed"}
    assert diff(state, changed) == [{"op": "replace", "path": "/key00042", "value": "changed"}]
    rebuilt = json_copy(changed)  # equal, but no object in common: still one operation
    assert diff(state, rebuilt) == [{"op": "replace", "path": "/key00042", "value": "changed"}]
    moved = apply_patch(state, diff(state, changed))
    assert moved["key00041"] is state["key00041"] and moved is not state
    copy_of_state = json_copy(state)
    mirrored = mirror(moved, state, copy_of_state)
    assert mirrored["key00041"] is copy_of_state["key00041"]  # reused: unchanged since the last copy
    assert mirrored["key00042"] == "changed"


def test_a_leaf_that_changes_json_type_is_a_change() -> None:
    assert diff({"n": 1}, {"n": True}) == [{"op": "replace", "path": "/n", "value": True}]
    assert diff({"n": 1}, {"n": 1.0}) == [{"op": "replace", "path": "/n", "value": 1.0}]
    assert diff([0], [False]) == [{"op": "replace", "path": "/0", "value": False}]


def test_lists_change_by_their_middle_and_long_changes_replace_the_list() -> None:
    assert diff([1, 2, 3], [1, 2, 3, 4]) == [{"op": "add", "path": "/3", "value": 4}]
    assert diff([1, 2, 3], [1, 3]) == [{"op": "remove", "path": "/1"}]
    long_change = diff(list(range(100)), list(range(100, 200)))
    assert long_change == [{"op": "replace", "path": "", "value": list(range(100, 200))}]


def test_a_patch_that_does_not_fit_raises_and_changes_nothing() -> None:
    state = {"a": {"b": 1}}
    with pytest.raises(jsonpatch.JsonPatchConflict):
        apply_patch(state, [{"op": "replace", "path": "/a/b", "value": 2}, {"op": "remove", "path": "/nope"}])
    assert state == {"a": {"b": 1}}


def test_a_mirror_of_a_copy_its_owner_changed_in_place_still_equals_the_new_state() -> None:
    old = {"a": {"b": 1}, "c": [1, 2]}
    old_copy = json_copy(old)
    del old_copy["a"]  # changed in place by whoever holds the copy
    old_copy["c"].append(3)
    new = apply_patch(old, [{"op": "add", "path": "/d", "value": 4}])
    assert mirror(new, old, old_copy) == {"a": {"b": 1}, "c": [1, 2], "d": 4}
