"""``@`` in the message box, kernel side: the user's variables listed for a view, and the summary
a picked one attaches to the message as context.

A view asks (``variables``, ``inspect_variable``: docs/wire.md) when the user types ``@`` and when
they pick a name; nothing travels as they type. The summary goes back to the kernel with the user's
message as a text document named ``@name``. Such a part is context the kernel made rather than a
file the user attached, so a chat's attachment policy (``AgentChat(attachments=False)`` even) does
not count it; the kernel knows it by its text, which must be a summary it gave out, so a view
cannot pass a file off as one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from ..vocabulary._marks import CONTEXT, NAMESPACE
from ..wire import _codec

SUMMARY_CHARS = 4000
"""The longest summary a mention attaches (characters): enough for a DataFrame's dtypes, head and
describe, small beside a model's context."""
MAX_LISTED = 2000
"""The most variables one answer lists (a namespace can hold tens of thousands of names)."""
ISSUED_KEPT = 500
"""How many summaries the kernel remembers giving out (a chip held longer is sent as a file)."""
MAX_CONTEXT_PARTS = 50
"""The most mention parts one message may carry as context; more count as files."""

NO_NAMESPACE = "This chat is not running in an IPython kernel (a notebook): there are no variables to mention."


class Mentions:
    """One chat's answers to ``@``: its variables, their summaries, and the summaries it gave out."""

    def __init__(self, max_chars: int = SUMMARY_CHARS) -> None:
        self.max_chars = max_chars
        self._issued: OrderedDict[bytes, None] = OrderedDict()

    def variables_answer(self, request_id: str) -> dict[str, Any]:
        """The ``variables`` message answering ``request_id``."""
        from ..inputs import _namespace

        namespace = _namespace.user_namespace()
        if namespace is None:
            return _codec.variables_message(request_id, [], NO_NAMESPACE)
        try:
            listed = _namespace.variables(namespace)
        except Exception as exc:  # a user's object whose type, len or size raises
            return _codec.variables_message(request_id, [], f"The variables could not be listed: {type(exc).__name__}: {exc}")
        entries = [_entry(item) for item in listed[:MAX_LISTED]]
        return _codec.variables_message(request_id, entries, None)

    def variable_answer(self, request_id: str, name: str) -> dict[str, Any]:
        """The ``variable`` message answering ``request_id``: ``name``'s summary, remembered as given out."""
        from ..inputs import _namespace

        namespace = _namespace.user_namespace()
        if namespace is None:
            return _codec.variable_message(request_id, name, None, NO_NAMESPACE)
        if name not in namespace:
            return _codec.variable_message(request_id, name, None, f"There is no variable named {name!r} in the kernel.")
        try:
            summary = _namespace.describe(namespace, name, self.max_chars)
        except Exception as exc:  # its repr, len or statistics raised
            return _codec.variable_message(request_id, name, None, f"{name} could not be summarised: {type(exc).__name__}: {exc}")
        self._remember(summary)
        return _codec.variable_message(request_id, name, summary, None)

    def mark_context(self, parts: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """A view's attachments, each mention part whose text is a summary this chat gave out marked
        as context (the policy leaves it out); a mark any other part claims is taken off."""
        marked: list[dict[str, Any]] = []
        for part in parts:
            plain = _without_context_mark(part)
            if sum(1 for m in marked if _is_context(m)) < MAX_CONTEXT_PARTS and self._gave_out(plain):
                metadata = dict(plain.get("metadata") or {})
                metadata[NAMESPACE] = {**(metadata.get(NAMESPACE) or {}), CONTEXT: "variable"}
                plain = {**plain, "metadata": metadata}
            marked.append(plain)
        return marked

    def _remember(self, summary: str) -> None:
        digest = _digest(summary.encode("utf-8"))
        self._issued[digest] = None
        self._issued.move_to_end(digest)
        while len(self._issued) > ISSUED_KEPT:
            self._issued.popitem(last=False)

    def _gave_out(self, part: Mapping[str, Any]) -> bool:
        """True for a text document named ``@name`` whose text is a summary this chat gave out."""
        source = part.get("source")
        metadata = part.get("metadata")
        filename = metadata.get("filename") if isinstance(metadata, Mapping) else None
        if part.get("type") != "document" or not isinstance(filename, str) or not filename.startswith("@"):
            return False
        if not isinstance(source, Mapping) or source.get("type") != "data" or source.get("mimeType") != "text/plain":
            return False
        value = source.get("value")
        if not isinstance(value, str) or len(value) > 4 * (4 * self.max_chars + 2) // 3 + 4:
            return False
        try:
            data = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return False
        return _digest(data) in self._issued


def _entry(item: Mapping[str, Any]) -> dict[str, Any]:
    """A variable as ``_namespace.variables`` describes it, as the wire carries it."""
    kind = item.get("kind")
    shape = item.get("shape")
    size = item.get("size")
    secret = bool(item.get("secret"))
    return _codec.variable_entry(
        str(item.get("name", "")),
        str(item.get("type", "")),
        kind if kind in ("function", "class") else "data",
        None if secret or shape is None else str(shape),
        None if secret or not isinstance(size, int) or isinstance(size, bool) else size,
        secret,
    )


def _digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _is_context(part: Mapping[str, Any]) -> bool:
    metadata = part.get("metadata")
    ours = metadata.get(NAMESPACE) if isinstance(metadata, Mapping) else None
    return isinstance(ours, Mapping) and CONTEXT in ours


def _without_context_mark(part: Mapping[str, Any]) -> dict[str, Any]:
    """``part`` (a copy) without a context mark: only the kernel sets one."""
    copied = dict(part)
    if not _is_context(part):
        return copied
    metadata = dict(part["metadata"])
    ours = {key: value for key, value in metadata[NAMESPACE].items() if key != CONTEXT}
    if ours:
        metadata[NAMESPACE] = ours
    else:
        del metadata[NAMESPACE]
    if metadata:
        copied["metadata"] = metadata
    else:
        del copied["metadata"]
    return copied
