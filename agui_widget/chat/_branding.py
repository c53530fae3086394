"""``AgentChat``'s branding: its title, a welcome for an empty chat, the message box's placeholder,
the avatars beside messages, and the name the assistant's messages carry.

A mixin of ``AgentChat``: synced traits, so a view follows an assignment live and a reloaded
page shows them again. Each is checked here, in the kernel, so a bad value is an error where it
was set; the views check the avatars again before drawing them.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import traitlets

from ..inputs._attachments import _image_bytes, sniff_mime

if TYPE_CHECKING:
    from ._threads import Threads

AVATAR_ROLES = ("user", "assistant")
MAX_AVATAR_TEXT = 16
"""Longest text avatar (code points): an emoji (a family is seven) or initials."""
MAX_AVATAR_URL = 512 * 1024
"""Longest avatar URL (characters), a data: URL included: it travels with the widget's state."""
AVATAR_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml")
_THUMBNAIL = (128, 128)
"""A PIL image is made this small (at most) before it becomes a data: URL."""
_SCHEME = re.compile(r"^\s*([a-zA-Z][a-zA-Z0-9+.-]*):")
_DATA_URL = re.compile(r"^data:(image/(?:png|jpeg|gif|webp|svg\+xml));base64,[A-Za-z0-9+/=\s]+$")


class _Avatars(traitlets.Dict):
    """``{"user": ..., "assistant": ...}``: each a URL, a short text, or an image."""

    def validate(self, obj: Any, value: Any) -> dict[str, str]:
        try:
            return avatars_of(value)
        except (TypeError, ValueError) as exc:
            raise traitlets.TraitError(f"chat.avatars: {exc}") from None


class _OneLine(traitlets.Unicode):
    """Text on one line (a title, a placeholder): line breaks become spaces."""

    def validate(self, obj: Any, value: Any) -> str:
        return " ".join(super().validate(obj, value).split())


class ChatBranding(traitlets.HasTraits):
    """What the chat is called and how it greets; the defaults ('' and ``{}``) are the views' own."""

    title = _OneLine("", help="shown in the chat's toolbar ('' for none)").tag(sync=True)
    welcome = traitlets.Unicode("", help="Markdown shown while the chat is empty ('' for the default line)").tag(sync=True)
    placeholder = _OneLine("", help="the message box's placeholder when idle ('' for the default)").tag(sync=True)
    avatars = _Avatars(help='beside messages, by role ("user", "assistant"): a URL, an emoji or short text, an image').tag(
        sync=True
    )
    assistant_name = _OneLine(
        "", help="the assistant's name over its messages: the agent's own name by default ('' for 'Assistant')"
    ).tag(sync=True)

    if TYPE_CHECKING:
        _threads: Threads

    @traitlets.default("assistant_name")
    def _agents_own_name(self) -> str:
        """A chat of one agent says the agent's name; with several, the picker's names show."""
        return "" if self._threads.agents else assistant_name_of(self._threads.start.agent)

    def _assistant_label(self) -> str | None:
        """What the assistant is called in exports: as over its messages, None for "Assistant"."""
        return self.assistant_name or self._threads.agent_name or None

    def _branding_of_exports(self) -> tuple[str | None, str | None]:
        """The title and the assistant's name, for the conversation kept in the notebook."""
        return self.title or None, self._assistant_label()


def avatars_of(value: Any) -> dict[str, str]:
    """The avatars as the views take them: a URL (http(s), or a data: URL of an image), or text."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f'avatars is a dict by role ("user", "assistant"), not {type(value).__name__}')
    unknown = sorted(str(role) for role in value if role not in AVATAR_ROLES)
    if unknown:
        raise ValueError(f'avatars are given for "user" and "assistant", not {", ".join(unknown)}')
    return {str(role): avatar_of(given, str(role)) for role, given in value.items() if given is not None and given != ""}


def avatar_of(value: Any, role: str = "assistant") -> str:
    """One avatar: a URL kept as it is, a short text, or an image made a data: URL here."""
    if isinstance(value, str):
        return _text_or_url(value.strip(), role)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _data_url(bytes(value), sniff_mime(bytes(value)), role)
    found = _image_bytes(_thumbnail(value))
    if found is None:
        raise TypeError(
            f"avatars[{role!r}] is a URL, an emoji or short text, image bytes, a PIL image or an IPython Image, "
            f"not {type(value).__name__}"
        )
    return _data_url(*found, role)


def _text_or_url(text: str, role: str) -> str:
    scheme = _SCHEME.match(text)
    if scheme is None:
        if not text or len(text) > MAX_AVATAR_TEXT or "\n" in text:
            raise ValueError(
                f"avatars[{role!r}]={text!r}: text avatars are an emoji or up to {MAX_AVATAR_TEXT} characters on one line; "
                "give an image as an http(s) URL, bytes or a PIL image"
            )
        return text
    if len(text) > MAX_AVATAR_URL:
        raise ValueError(f"avatars[{role!r}] is longer than {MAX_AVATAR_URL} characters: use a smaller image or an http(s) URL")
    kind = scheme.group(1).lower()
    if kind in ("http", "https") and re.match(r"(?i)^https?://[^\s\"'<>]+$", text):
        return text
    if kind == "data" and _DATA_URL.match(text):
        return text
    raise ValueError(
        f"avatars[{role!r}]: {text[:60]!r} is not an avatar URL; give an http(s) URL or a base64 data: URL of a "
        f"{'/'.join(t.split('/')[1] for t in AVATAR_IMAGE_TYPES)} image"
    )


def _data_url(data: bytes, mime: str, role: str) -> str:
    if mime not in AVATAR_IMAGE_TYPES:
        raise ValueError(
            f"avatars[{role!r}]: these bytes are not an image the views can show ({mime}); give PNG, JPEG, GIF or WebP"
        )
    url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    if len(url) > MAX_AVATAR_URL:
        raise ValueError(
            f"avatars[{role!r}]: the image is {len(data)} bytes, too large for an avatar; make it smaller or give a PIL image"
        )
    return url


def _thumbnail(value: Any) -> Any:
    """A PIL image at most avatar-sized (a copy: the caller's image stays as it was)."""
    if type(value).__module__.startswith("PIL.") and callable(getattr(value, "thumbnail", None)):
        small = value.copy()
        small.thumbnail(_THUMBNAIL)
        return small
    return value


def assistant_name_of(agent: Any) -> str:
    """The agent's own name where it was given one (``display_name`` on the adapters; ``name`` on
    another AG-UI agent), else '' (the views say "Assistant")."""
    if type(agent).__module__.startswith("agui_widget."):
        name = getattr(agent, "display_name", None)
    else:
        name = getattr(agent, "name", None)
    return " ".join(name.split()) if isinstance(name, str) else ""
