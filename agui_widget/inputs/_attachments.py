"""Attachments: images and files sent with a user message, as AG-UI 1.0 multimodal content parts.

A part is ``{"type": "image" | "audio" | "video" | "document", "source": {"type": "data", "value":
base64, "mimeType": ...}, "metadata": {"filename": ...}}`` (or a ``url`` source). The composer
makes them from pasted, dropped and picked files; ``chat.send(text, attachments=[...])`` from
paths, bytes, PIL images, matplotlib figures and anything IPython can render as an image.

The policy (:class:`AttachmentPolicy`) bounds what a chat takes: how many, how big, which types.
The kernel holds every message to it, whoever made it (a view cannot be trusted to), so a thread
store never holds more than the policy lets in.
"""

from __future__ import annotations

import base64
import binascii
import io
import mimetypes
import os
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..vocabulary._display import release_figure
from ..vocabulary._marks import CONTEXT, mark_of
from ..wire import _codec

MEDIA_TYPES = ("image", "audio", "video", "document")


@dataclass(frozen=True)
class AttachmentPolicy:
    """What a chat accepts as attachments.

    ``accept``: MIME types or families (``"image/*"``), empty for any; ``max_bytes``: the largest
    file (decoded); ``max_files``: per message; ``max_total_bytes``: all of one message's files.
    The defaults keep a message within what a notebook server passes over its websocket (10 MiB,
    and base64 makes bytes a third bigger).
    """

    accept: tuple[str, ...] = ("image/*", "application/pdf", "text/*", "application/json")
    max_bytes: int = 5 * 1024 * 1024
    max_files: int = 10
    max_total_bytes: int = 7 * 1024 * 1024
    enabled: bool = field(default=True)

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_files", "max_total_bytes"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"attachments: {name} must be a positive whole number")

    @classmethod
    def of(cls, value: bool | Mapping[str, Any] | AttachmentPolicy | None) -> AttachmentPolicy:
        """``AgentChat(attachments=...)``: True/None (the defaults), False (none), a dict of options."""
        if isinstance(value, AttachmentPolicy):
            return value
        if value is None or value is True:
            return cls()
        if value is False:
            return cls(enabled=False)
        if isinstance(value, Mapping):
            known = {"accept", "max_bytes", "max_files", "max_total_bytes"}
            unknown = set(value) - known
            if unknown:
                raise TypeError(f"attachments: unknown options {sorted(unknown)}; known: {sorted(known)}")
            options = dict(value)
            if "accept" in options:
                accept = options["accept"]
                options["accept"] = (accept,) if isinstance(accept, str) else tuple(accept)
            return cls(**options)
        raise TypeError(f"attachments= takes True, False or a dict of options, not {type(value).__name__}")

    def accepts(self, mime_type: str) -> bool:
        if not self.accept:
            return True
        mime_type = mime_type.lower()
        family = mime_type.split("/", 1)[0] + "/*"
        return any(pattern.lower() in (mime_type, family, "*/*") for pattern in self.accept)

    def check(self, parts: Sequence[Mapping[str, Any]]) -> None:
        """Raise a ValueError a user can read when ``parts`` (a message's content) break the policy.
        A part marked as context the kernel made (an ``@`` mention's summary) is not a file: it is
        not counted."""
        media = [part for part in parts if part.get("type") in MEDIA_TYPES and mark_of(part, CONTEXT) is None]
        if not media:
            return
        if not self.enabled:
            raise ValueError("this chat takes no attachments (AgentChat(attachments=False))")
        if len(media) > self.max_files:
            raise ValueError(f"{len(media)} attachments is more than this chat takes at once ({self.max_files})")
        total = 0
        for part in media:
            name = label_of(part)
            mime = _declared_mime(part) or _KIND_FAMILY.get(str(part.get("type")), "application/octet-stream")
            if not self.accepts(mime):
                raise ValueError(f"{name}: {mime} is not a type this chat takes ({', '.join(self.accept)})")
            size = size_of(part)
            if size > self.max_bytes:
                raise ValueError(f"{name} is {human_size(size)}; this chat takes files up to {human_size(self.max_bytes)}")
            total += size
        if total > self.max_total_bytes:
            raise ValueError(
                f"the attachments add up to {human_size(total)}; this chat takes up to {human_size(self.max_total_bytes)} per message"
            )

    def to_wire(self) -> dict[str, Any]:
        return _codec.attachment_policy(self.enabled, list(self.accept), self.max_bytes, self.max_files, self.max_total_bytes)


# -- making parts -----------------------------------------------------------------------------------


def attachment_parts(items: Iterable[Any]) -> list[dict[str, Any]]:
    """Content parts for ``chat.send(text, attachments=[...])``: paths, bytes, PIL images,
    matplotlib figures, objects IPython renders as PNG/JPEG/SVG, or parts (dicts) as they are."""
    if isinstance(items, (str, bytes, os.PathLike, Mapping)):
        items = [items]
    return [_part_of(item) for item in items]


def _part_of(item: Any) -> dict[str, Any]:
    if isinstance(item, Mapping):
        return dict(item)
    if isinstance(item, (str, os.PathLike)):
        path = os.fspath(item)
        if isinstance(path, bytes):
            path = path.decode()
        try:
            with open(path, "rb") as file:
                data = file.read()
        except OSError as exc:
            raise ValueError(f"attachment {path!r} cannot be read: {exc.strerror or exc}") from None
        mime = mimetypes.guess_type(path)[0] or sniff_mime(data)
        return data_part(data, mime, os.path.basename(path))
    if isinstance(item, (bytes, bytearray, memoryview)):
        data = bytes(item)
        return data_part(data, sniff_mime(data), None)
    image = _image_bytes(item)
    if image is not None:
        data, mime = image
        return data_part(data, mime, None)
    raise TypeError(
        f"an attachment is a path, bytes, a PIL image, a matplotlib figure or anything IPython shows as an image, "
        f"not {type(item).__name__}"
    )


def with_attachments(text: str, parts: Sequence[Mapping[str, Any]]) -> str | list[dict[str, Any]]:
    """A user message's content: the text alone, or its text part (when there is text) and then
    the attachments' parts."""
    if not parts:
        return text
    return [*([{"type": "text", "text": text}] if text.strip() else []), *(dict(part) for part in parts)]


def data_part(data: bytes, mime_type: str, filename: str | None) -> dict[str, Any]:
    """A media part carrying ``data`` inline."""
    part: dict[str, Any] = {
        "type": media_kind(mime_type),
        "source": {"type": "data", "value": base64.b64encode(data).decode("ascii"), "mimeType": mime_type},
    }
    if filename:
        part["metadata"] = {"filename": filename}
    return part


def media_kind(mime_type: str) -> str:
    family = mime_type.split("/", 1)[0].lower()
    return family if family in ("image", "audio", "video") else "document"


def _image_bytes(obj: Any) -> tuple[bytes, str] | None:
    """PNG (or JPEG/SVG) bytes of a PIL image, a matplotlib figure or a displayable object."""
    module = type(obj).__module__
    if module.startswith("PIL.") and callable(getattr(obj, "save", None)):
        buffer = io.BytesIO()
        obj.save(buffer, format="PNG")
        return buffer.getvalue(), "image/png"
    if module.startswith("matplotlib.") and callable(getattr(obj, "savefig", None)):
        buffer = io.BytesIO()
        obj.savefig(buffer, format="png", bbox_inches="tight")
        release_figure(obj)
        return buffer.getvalue(), "image/png"
    for method, mime in (("_repr_png_", "image/png"), ("_repr_jpeg_", "image/jpeg"), ("_repr_svg_", "image/svg+xml")):
        render = getattr(obj, method, None)
        if callable(render):
            data = render()
            if isinstance(data, tuple):  # (data, metadata)
                data = data[0]
            if data:  # a binary type given as text is base64, as in a display's bundle
                text = isinstance(data, str)
                if text and mime != "image/svg+xml":
                    return base64.b64decode(data), mime
                return (data.encode() if text else bytes(data)), mime
    bundle = getattr(obj, "_repr_mimebundle_", None)
    if callable(bundle):
        found = bundle()
        found = found[0] if isinstance(found, tuple) else found
        for mime in ("image/png", "image/jpeg"):
            if isinstance(found, Mapping) and found.get(mime):
                value = found[mime]
                return (base64.b64decode(value) if isinstance(value, str) else bytes(value)), mime
    return None


_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)


def sniff_mime(data: bytes) -> str:
    """The type bytes announce at their start; text when they decode as UTF-8, else octet-stream."""
    for signature, mime in _SIGNATURES:
        if data.startswith(signature):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    try:
        data[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return "application/octet-stream"
    return "text/plain"


# -- reading parts ----------------------------------------------------------------------------------


def mime_of(part: Mapping[str, Any]) -> str:
    return _declared_mime(part) or "application/octet-stream"


_KIND_FAMILY = {"image": "image/*", "audio": "audio/*", "video": "video/*"}
"""What a part whose source names no type is taken as (a URL of an image says only that)."""


def _declared_mime(part: Mapping[str, Any]) -> str | None:
    source = part.get("source")
    mime = source.get("mimeType") if isinstance(source, Mapping) else None
    return mime if isinstance(mime, str) and mime else None


def filename_of(part: Mapping[str, Any]) -> str | None:
    metadata = part.get("metadata")
    name = metadata.get("filename") if isinstance(metadata, Mapping) else None
    return name if isinstance(name, str) and name else None


def label_of(part: Mapping[str, Any]) -> str:
    """The part as a user names it: its file name, or its kind."""
    return filename_of(part) or f"the {part.get('type', 'attachment')}"


def data_of(part: Mapping[str, Any]) -> bytes | None:
    """An inline part's bytes (None for a url source or data that is not base64)."""
    source = part.get("source")
    if not isinstance(source, Mapping) or source.get("type") != "data" or not isinstance(source.get("value"), str):
        return None
    try:
        return base64.b64decode(source["value"], validate=True)
    except (binascii.Error, ValueError):
        return None


def context_text(part: Mapping[str, Any]) -> str | None:
    """What a model reads for a part marked as context (an ``@`` mention's summary): its name and
    its text, as text. Providers read few documents besides PDFs (OpenAI's chat API reads no text
    file), so context goes as text; None for any other part, or one whose text is not UTF-8."""
    if mark_of(part, CONTEXT) is None or not str(_declared_mime(part) or "").startswith("text/"):
        return None
    data = data_of(part)
    try:
        text = data.decode("utf-8") if data is not None else None
    except UnicodeDecodeError:
        return None
    return None if text is None else f"{label_of(part)} (context attached to this message):\n{text}"


def size_of(part: Mapping[str, Any]) -> int:
    """An inline part's decoded size, from its base64 length (0 for a url source)."""
    source = part.get("source")
    if not isinstance(source, Mapping) or source.get("type") != "data":
        return 0
    value = source.get("value")
    if not isinstance(value, str):
        return 0
    stripped = value.rstrip("=")
    return len(stripped) * 3 // 4


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a PNG, GIF or JPEG from its header; None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return width, height
    if data.startswith(b"\xff\xd8"):
        index = 2
        while index + 9 < len(data):
            if data[index] != 0xFF:
                index += 1
                continue
            marker = data[index + 1]
            if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                height, width = struct.unpack(">HH", data[index + 5 : index + 9])
                return width, height
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                index += 2
                continue
            (length,) = struct.unpack(">H", data[index + 2 : index + 4])
            index += 2 + length
    return None


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def describe(part: Mapping[str, Any]) -> str:
    """One line about a part: name, type, size and, for an image whose bytes are here, its size in pixels."""
    return f"{filename_of(part) or 'an unnamed ' + str(part.get('type'))} ({details_of(part)})"


def details_of(part: Mapping[str, Any]) -> str:
    """A part's type, size and (for an image whose bytes are here) its size in pixels."""
    details = [mime_of(part)]
    source = part.get("source")
    if isinstance(source, Mapping) and source.get("type") == "url":
        details.append(f"at {source.get('value')}")
    else:
        details.append(human_size(size_of(part)))
        data = data_of(part)
        pixels = image_size(data) if data is not None and part.get("type") == "image" else None
        if pixels is not None:
            details.append(f"{pixels[0]}×{pixels[1]} pixels")
    return ", ".join(details)


__all__ = [
    "AttachmentPolicy",
    "attachment_parts",
    "context_text",
    "data_part",
    "describe",
    "details_of",
    "human_size",
    "image_size",
    "label_of",
    "media_kind",
    "sniff_mime",
    "with_attachments",
]
