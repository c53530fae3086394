"""Surrogate repair: UTF-16 surrogate pairs a JavaScript producer split across deltas are rejoined,
and halves that never pair are replaced, so nothing downstream meets a string UTF-8 cannot encode."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ag_ui.core import BaseEvent, EventType

from ..vocabulary._deltas import BY_END, DELTAS
from ..vocabulary._unicode import REPLACEMENT, has_surrogate, is_high_surrogate, rejoin_pairs, replace_lone, scrub

__all__ = ["SurrogateRepair"]


class SurrogateRepair:
    """Rejoins UTF-16 surrogate pairs split across deltas, and replaces halves that never pair.

    A JavaScript producer slices text by UTF-16 code units, so an emoji may come as two deltas
    holding one half each. The official client simply concatenates them; here a delta ending in a
    high surrogate is held back until the next delta of the same message (or tool call) brings
    the low half. A half that never pairs (an END, another run, a lone low half) becomes U+FFFD,
    with one warning per stream, so nothing downstream meets a string UTF-8 cannot encode. Other
    events are checked whole (their strings rarely hold a surrogate, and then are repaired too).
    """

    __slots__ = ("held", "warn", "warned")

    def __init__(self, warn: Callable[[str], None]) -> None:
        self.held: dict[tuple[Any, str], str] = {}
        self.warn = warn
        self.warned = False

    def delta(self, event: Any, id_field: str) -> Any:
        if event.metadata is not None or event.raw_event is not None or event.__pydantic_extra__:
            event = self._beside_the_text(event)
        held = self.held.pop((event.type, getattr(event, id_field)), None) if self.held else None
        delta = event.delta
        text = delta if held is None else held + delta
        if held is None and not has_surrogate(text):
            return event
        text = rejoin_pairs(text)
        if text and is_high_surrogate(text[-1]):
            self.held[(event.type, getattr(event, id_field))] = text[-1]
            text = text[:-1]
        fixed = replace_lone(text)
        if fixed != text:
            self._replaced(event.type.value)
        return event.model_copy(update={"delta": fixed})

    def _beside_the_text(self, event: Any) -> Any:
        """A delta carrying more than its text (metadata, a raw payload: rare), with those repaired;
        the text itself is left to the pairing."""
        if not _may_hold_surrogate(event):
            return event
        data = event.model_dump(by_alias=True)
        delta = data.pop("delta")
        data, changed = scrub(data)
        if not changed:
            return event
        self._replaced(event.type.value)
        data["delta"] = delta
        return type(event).model_validate(data)

    def flush(self, event: Any) -> list[BaseEvent]:
        """Before an END: the half it held, as U+FFFD; before a run's end: every half held; a
        messages snapshot replaces what they would have ended, so they are dropped."""
        if not self.held:
            return []
        ends = BY_END.get(event.type)
        if ends is not None:
            keys = [(ends.type, getattr(event, ends.id_attr))]
        elif event.type in (EventType.RUN_FINISHED, EventType.RUN_ERROR, EventType.RUN_STARTED):
            keys = list(self.held)
        elif event.type == EventType.MESSAGES_SNAPSHOT:
            self.held.clear()  # the snapshot replaces the text the half would have ended
            return []
        else:
            return []
        flushed: list[BaseEvent] = []
        for key in keys:
            if self.held.pop(key, None) is not None:
                self._replaced(key[0].value)
                flushed.append(DELTAS[key[0]].build(key[1], REPLACEMENT))
        return flushed

    def whole(self, event: Any) -> Any:
        """A non-delta event whose strings hold a surrogate, repaired (rare: checked cheaply)."""
        deep = bool(event.__pydantic_extra__)
        for value in event.__dict__.values():
            if isinstance(value, str):
                if has_surrogate(value):
                    deep = True
                    break
            elif value is not None and not isinstance(value, (int, float)):
                deep = True  # a container or a model: its JSON encoding tells
        if not deep or not _may_hold_surrogate(event):
            return event
        data, changed = scrub(event.model_dump(by_alias=True))
        if not changed:
            return event
        self._replaced(event.type.value)
        return type(event).model_validate(data)

    def _replaced(self, where: str) -> None:
        if not self.warned:
            self.warned = True
            self.warn(
                f"Replaced a lone UTF-16 surrogate (half of a character that never got its other half) in "
                f"{where} with U+FFFD; later ones in this stream are replaced without a warning."
            )


def _may_hold_surrogate(event: BaseEvent) -> bool:
    """False when ``event`` surely holds no surrogate (its JSON encodes as UTF-8)."""
    try:
        event.__pydantic_serializer__.to_json(event, by_alias=True, fallback=repr)
    except Exception:  # pydantic-core refuses a surrogate it cannot encode
        return True
    return False
