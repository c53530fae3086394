"""``chat.link(widget, key)``: a widget's trait and a key of the shared state kept equal both ways.

As ``traitlets.link`` keeps two traits equal. A change of the widget (a user dragging a slider, a
cell assigning it) goes into the state as ``chat.update_state({key: value})`` would, so the views
and the agent's next run see it; a change of the state (the agent's STATE_SNAPSHOT or STATE_DELTA,
an edit in the view's State panel, a cell's ``chat.state = ...``) sets the trait. It all runs in the
kernel, so it works wherever the chat and the widget are shown: JupyterLab, Notebook 7, Voilà.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, cast

import traitlets

from ..vocabulary._loops import on_loop, running_loop

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ._widget import AgentChat

log = logging.getLogger("agui_widget")


class StateLink:
    """One link between ``widget.<trait>`` and ``chat.state[key]``; :meth:`unlink` ends it."""

    def __init__(self, chat: AgentChat, widget: traitlets.HasTraits, key: str, trait: str) -> None:
        self.chat = chat
        self.widget = widget
        self.key = key
        self.trait = trait
        self._updating = False
        """Set while the link itself writes one side, so the other side's change is not echoed back."""
        self._rejected: Any = _NOTHING
        """The state's value the trait last refused: not tried again until the state's value changes."""
        self._loop = running_loop()
        """The loop the chat's changes run on (the kernel's): a widget change that arrives on another
        thread (a kernel subshell) is carried out there."""
        self._linked = False

    def __repr__(self) -> str:
        state = "linked" if self._linked else "unlinked"
        return f"<StateLink {type(self.widget).__name__}.{self.trait} <-> state[{self.key!r}] ({state})>"

    def start(self) -> None:
        """Make the two sides equal (the state's value wins when the key is there), then follow both.

        Raises, with nothing linked, when the trait refuses the state's value (``traitlets.TraitError``)
        or the widget's value is not JSON (``TypeError``)."""
        state = self.chat.state
        if isinstance(state, dict) and self.key in state:
            self._set_trait(state[self.key], strict=True)
        else:
            value = getattr(self.widget, self.trait)
            problem = _not_json(value)
            if problem is not None:
                raise TypeError(
                    f"chat.link: {self._side()} = {_short(value)} cannot go into the state, which holds JSON: {problem}"
                )
            self._write_state(value)
        self.widget.observe(self._widget_changed, names=self.trait)
        self.chat.observe(self._state_changed, names="state")
        self._linked = True

    def unlink(self) -> None:
        """Stop following both sides (each keeps its value); unlinking twice does nothing."""
        if not self._linked:
            return
        self._linked = False
        self.widget.unobserve(self._widget_changed, names=self.trait)
        self.chat.unobserve(self._state_changed, names="state")
        self.chat._forget_link(self)

    def matches(self, widget: Any, key: str, trait: str) -> bool:
        return self.widget is widget and self.key == key and self.trait == trait

    # -- the state -> the widget -------------------------------------------------------------------

    def _state_changed(self, change: Mapping[str, Any]) -> None:
        state = change["new"]
        if self._updating or not isinstance(state, dict) or self.key not in state:
            return  # the link's own write, or the key is gone: the widget keeps its value
        value = state[self.key]
        if _same(value, getattr(self.widget, self.trait)) or _same(value, self._rejected):
            return
        self._set_trait(value, strict=False)

    def _set_trait(self, value: Any, *, strict: bool) -> None:
        """Set the trait to the state's value; the value the widget keeps (a slider clamps to its
        range) goes back into the state, so the two stay equal."""
        self._updating = True
        try:
            setattr(self.widget, self.trait, value)
        except Exception as exc:  # a TraitError, or an observer of the widget's that failed
            if strict:
                raise
            self._rejected = value
            log.warning(
                "agui-widget: chat.link: %s did not take state[%r] = %s (the widget keeps %s): %s",
                self._side(),
                self.key,
                _short(value),
                _short(getattr(self.widget, self.trait, None)),
                exc,
            )
            return
        finally:
            self._updating = False
        self._rejected = _NOTHING
        kept = getattr(self.widget, self.trait)
        if not _same(kept, value):
            self._write_state(kept)

    # -- the widget -> the state -------------------------------------------------------------------

    def _widget_changed(self, change: Mapping[str, Any]) -> None:
        if self._updating:
            return
        if not on_loop(self._loop, self._write_state_later, change["new"]):
            self._write_state(change["new"])  # that loop is closed: no run or view can be waiting on it

    def _write_state_later(self, value: Any) -> None:
        if self._linked:  # not unlinked meanwhile
            self._write_state(value)

    def _write_state(self, value: Any) -> None:
        """``chat.update_state({key: value})``, once the chat is not in the middle of taking a change
        from its session (an assignment then would not reach the session)."""
        if self.chat._syncing and self._loop is not None and running_loop() is self._loop:
            self._loop.call_soon(self._write_state_later, value)
            return
        problem = _not_json(value)
        if problem is not None:
            log.warning(
                "agui-widget: chat.link: %s = %s is not JSON, so state[%r] keeps its value: %s",
                self._side(),
                _short(value),
                self.key,
                problem,
            )
            return
        state = self.chat.state
        if isinstance(state, dict) and self.key in state and _same(state[self.key], value):
            return
        self._updating = True
        try:
            self.chat.update_state({self.key: value})
        finally:
            self._updating = False
        self._rejected = _NOTHING

    def _side(self) -> str:
        return f"{type(self.widget).__name__}.{self.trait}"


class ChatLinks:
    """``chat.link`` and ``chat.unlink``: widgets' traits kept equal to keys of the shared state."""

    if TYPE_CHECKING:  # what the methods read of the chat
        state: Any

    def link(self, widget: traitlets.HasTraits, key: str, trait: str = "value") -> StateLink:
        """Keep ``widget.<trait>`` and ``chat.state[key]`` equal both ways, as ``traitlets.link`` does.

        ``widget``: an ipywidget, or any ``traitlets.HasTraits``; ``key``: a top-level key of the
        (dict) state. At once the state's value is set on the widget when the key is there, else the
        widget's value goes into the state. Then a change of the widget updates the state (the views
        and the agent's next run see it), and a change of the state (the agent's, the view's, a
        cell's) sets the widget. A value the widget adjusts (a slider clamps it to its range) goes
        back into the state as the widget holds it; one it refuses is logged and left in the state.
        Returns the link: ``link.unlink()`` (or :meth:`unlink`) ends it. Linking the same widget,
        key and trait again returns the existing link.
        """
        if not isinstance(widget, traitlets.HasTraits):
            raise TypeError(f"chat.link takes an ipywidget (or any traitlets.HasTraits), not {type(widget).__name__}")
        if not isinstance(key, str):
            raise TypeError(
                f"chat.link takes a top-level key of the state, a str, not {type(key).__name__} ({key!r}); "
                "link a nested value through a key of its own"
            )
        if not isinstance(trait, str) or not widget.has_trait(trait):
            names = ", ".join(sorted(n for n in widget.trait_names() if not n.startswith("_"))[:20])
            raise ValueError(f"chat.link: {type(widget).__name__} has no trait {trait!r} (it has: {names})")
        if self.state is not None and not isinstance(self.state, dict):
            raise ValueError(f"chat.link needs a dict state to hold key {key!r}; chat.state is a {type(self.state).__name__}")
        for existing in self._state_links():
            if existing.matches(widget, key, trait):
                return existing
        link = StateLink(cast("AgentChat", self), widget, key, trait)
        link.start()
        self._state_links().append(link)
        return link

    def unlink(self, widget: traitlets.HasTraits, key: str, trait: str = "value") -> None:
        """End the link :meth:`link` made between ``widget.<trait>`` and ``chat.state[key]``; both keep
        their values. Raises ``ValueError`` when there is no such link."""
        for existing in self._state_links():
            if existing.matches(widget, key, trait):
                existing.unlink()
                return
        linked = ", ".join(repr(link) for link in self._state_links()) or "none"
        raise ValueError(f"chat.unlink: {type(widget).__name__}.{trait} is not linked to state[{key!r}] (links: {linked})")

    def _state_links(self) -> list[StateLink]:
        links: list[StateLink] = self.__dict__.setdefault("_widget_links", [])
        return links

    def _forget_link(self, link: StateLink) -> None:
        links = self._state_links()
        if link in links:
            links.remove(link)


_NOTHING = object()


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values are: a widget's tuple (a range slider's) is the state's list."""
    try:
        return bool(_plain(a) == _plain(b))
    except Exception:  # a value whose == fails (an array's is ambiguous)
        return a is b


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _not_json(value: Any) -> str | None:
    """Why ``value`` cannot be a JSON value of the state, or None when it can."""
    try:
        json.dumps(value)
    except (TypeError, ValueError) as exc:
        return str(exc)
    return None


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["ChatLinks", "StateLink"]
