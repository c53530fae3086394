"""``AgentChat``'s run settings: a few choices the user makes in the chat (a model, a temperature,
a switch) that go with each run as ``RunAgentInput.forwardedProps``, under their own names.

A mixin of ``AgentChat``. ``settings`` is the spec (synced: the views draw a picker from it);
``setting_values`` the current values, checked against the spec here, in the kernel, whether they
come from Python or from a view's ``settings`` request. Each thread keeps its own values, saved
with the thread in its store: switching threads brings that thread's back, and so does a new chat
on the same store and thread (a thread not chosen for yet starts from the defaults).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import traitlets

if TYPE_CHECKING:
    from ..session._session import Session
    from ._threads import Threads

MAX_SETTINGS = 20
MAX_CHOICES = 100
_ACCEPTED = (
    "a list of choices (the first is the default), a (min, max, default) or (min, max, default, step) tuple of numbers, or a bool"
)


def spec_of(name: Any, given: Any) -> dict[str, Any]:
    """One setting's spec as the views take it: ``{"kind": "choice" | "range" | "switch", ...}``."""
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"settings: names are non-empty strings, not {name!r}")
    if isinstance(given, bool):
        return {"kind": "switch", "default": given}
    if isinstance(given, list):
        choices = [c for c in given if isinstance(c, (str, int, float)) and not isinstance(c, bool)]
        if not given or len(choices) != len(given) or len(given) > MAX_CHOICES or len(set(given)) != len(given):
            raise ValueError(
                f"settings[{name!r}]: a list of choices is 1 to {MAX_CHOICES} distinct strings or numbers, not {given!r}"
            )
        return {"kind": "choice", "choices": list(given), "default": given[0]}
    if isinstance(given, tuple) and len(given) in (3, 4) and all(_is_number(n) for n in given):
        low, high, default = given[:3]
        whole = all(isinstance(n, int) for n in given)
        step = given[3] if len(given) == 4 else (1 if whole else (high - low) / 100)
        if not low < high or not low <= default <= high or step <= 0:
            raise ValueError(f"settings[{name!r}]={given!r}: a range needs min < max, min <= default <= max, step > 0")
        return {"kind": "range", "min": low, "max": high, "default": default, "step": step, "integer": whole}
    raise TypeError(f"settings[{name!r}]={given!r}: a setting is {_ACCEPTED}")


def specs_of(given: Any) -> dict[str, dict[str, Any]]:
    """``AgentChat(settings=...)`` checked: each setting's spec, by name, in the order given."""
    if given is None:
        return {}
    if not isinstance(given, Mapping):
        raise TypeError(f"settings is a dict of name -> {_ACCEPTED}; not {type(given).__name__}")
    if len(given) > MAX_SETTINGS:
        raise ValueError(f"settings: at most {MAX_SETTINGS} settings, not {len(given)}")
    return {name: spec for name, spec in ((name, _spec_or_kept(name, value)) for name, value in given.items())}


def _spec_or_kept(name: Any, value: Any) -> dict[str, Any]:
    """A spec already checked (``chat.settings`` assigned back) stays as it is."""
    if isinstance(value, Mapping) and value.get("kind") in ("choice", "range", "switch") and "default" in value:
        return dict(value)
    return spec_of(name, value)


def checked_value(name: str, spec: Mapping[str, Any], value: Any) -> Any:
    """``value`` as setting ``name`` takes it, or a ValueError that says what it takes."""
    kind = spec["kind"]
    if kind == "switch" and isinstance(value, bool):
        return value
    if kind == "choice" and any(value == c and type(value) is type(c) for c in spec["choices"]):
        return value
    if kind == "range" and _is_number(value) and spec["min"] <= value <= spec["max"]:
        if not spec["integer"]:
            return float(value) if isinstance(value, int) else value
        if isinstance(value, int) or float(value).is_integer():
            return int(value)
    raise ValueError(f"setting {name!r} takes {_takes(spec)}, not {value!r}")


def _takes(spec: Mapping[str, Any]) -> str:
    if spec["kind"] == "switch":
        return "true or false"
    if spec["kind"] == "choice":
        return "one of " + ", ".join(repr(c) for c in spec["choices"])
    return f"{'a whole number' if spec['integer'] else 'a number'} from {spec['min']} to {spec['max']}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class _Specs(traitlets.Dict):
    def validate(self, obj: Any, value: Any) -> dict[str, dict[str, Any]]:
        try:
            return specs_of(value)
        except (TypeError, ValueError) as exc:
            raise traitlets.TraitError(str(exc)) from None


class ChatRunSettings(traitlets.HasTraits):
    """The run settings' traits and API; the values go to each run through the session."""

    settings = _Specs(
        help="run settings the user picks in the chat, by name: a list of choices, a (min, max, default) tuple, a bool"
    ).tag(sync=True)
    setting_values: traitlets.Dict[str, Any] = traitlets.Dict(
        help="the current thread's run settings, sent as forwardedProps with each run"
    ).tag(sync=True)

    if TYPE_CHECKING:
        _session: Session
        _threads: Threads

    def set_setting(self, name: str, value: Any) -> None:
        """Set one run setting for this thread's next runs (checked against ``settings``)."""
        self.setting_values = {**self.setting_values, name: value}

    def _defaults(self) -> dict[str, Any]:
        return {name: spec["default"] for name, spec in self.settings.items()}

    def _kept_values(self) -> dict[str, dict[str, Any]]:
        kept: dict[str, dict[str, Any]] | None = self.__dict__.get("_values_by_thread")
        if kept is None:
            kept = self.__dict__["_values_by_thread"] = {}
        return kept

    @traitlets.validate("setting_values")
    def _check_values(self, proposal: Any) -> dict[str, Any]:
        given = proposal["value"]
        unknown = sorted(str(name) for name in given if name not in self.settings)
        if unknown:
            raise traitlets.TraitError(f"no run setting named {', '.join(unknown)}; the settings are {', '.join(self.settings)}")
        try:
            checked = {name: checked_value(name, self.settings[name], value) for name, value in given.items()}
        except ValueError as exc:
            raise traitlets.TraitError(str(exc)) from None
        return {**self._defaults(), **checked}

    @traitlets.observe("settings")
    def _spec_changed(self, change: Any) -> None:
        """The values that still fit the new spec stay (``setting_values=`` given with ``settings=``
        wins over what the store kept, as ``messages=`` and ``state=`` do); the rest come from the
        store, else the defaults."""
        self._kept_values().clear()
        self._follow({**self._stored(self._session.thread_id), **self._fitting(self.setting_values)})

    @traitlets.observe("setting_values")
    def _values_changed(self, change: Any) -> None:
        values = copy.deepcopy(change["new"])
        self._kept_values()[self._session.thread_id] = values
        self._session.setting_values = values
        if not self.__dict__.get("_following") and self._session.messages:
            self._threads.changed()  # saved with the thread (an empty thread: with its first turn)

    def _stored(self, thread_id: str) -> dict[str, Any]:
        """What the store kept of the thread's values that the spec still takes (the defaults for the rest)."""
        return {**self._defaults(), **self._fitting(self._threads.stored_settings(thread_id) or {})}

    def _fitting(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The values the spec still takes (one it no longer takes: its default stands)."""
        fitting = {}
        for name, value in values.items():
            if name in self.settings:
                try:
                    fitting[name] = checked_value(name, self.settings[name], value)
                except ValueError:
                    continue
        return fitting

    def _follow(self, values: dict[str, Any]) -> None:
        """Show a thread's values, which are its own already (nothing new to save)."""
        self.__dict__["_following"] = True
        try:
            self.setting_values = values
        finally:
            self.__dict__["_following"] = False

    def _settings_from_view(self, values: Mapping[str, Any]) -> None:
        """A view's ``settings`` request: refused whole (a ValueError, told as a notice) when one is bad."""
        try:
            self.setting_values = {**self.setting_values, **values}
        except traitlets.TraitError as exc:
            raise ValueError(str(exc)) from None

    def _settings_follow_thread(self, thread_id: str) -> None:
        """After a switch: the thread's own values, or the defaults for a thread not chosen for yet."""
        kept = self._kept_values().get(thread_id)
        self._follow(kept if kept is not None else self._stored(thread_id))
