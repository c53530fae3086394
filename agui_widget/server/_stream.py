"""One served run: the agent's events, held to the AG-UI rules before they go on the wire.

The same client pipeline the notebook session uses (:class:`~agui_widget.pipeline._consumer.EventConsumer`:
normalise, expand chunks, verify, reduce) sits between the agent and the HTTP stream, so an agent
that breaks the protocol, raises, stops without finishing, or yields an event the encoder cannot
write gives the client a clean RUN_ERROR instead of a stream its parser rejects (or a cut
connection). What the run did to the transcript and state is on the consumer afterwards (for a
thread store).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable

import anyio
from ag_ui.core import BaseEvent, EventType, RunAgentInput

from ..adapters import Agent
from ..pipeline._consumer import EventConsumer
from ..pipeline._verify import EventVerifier, ProtocolError
from ..vocabulary._errors import describe_exception
from ._memory import IDLE_RELEASE
from ._request import escape_surrogates

log = logging.getLogger("agui_widget")

CLOSE_TIMEOUT = 5.0
"""Seconds an agent's generator gets to run its cleanup once the client has gone."""

REASON_LIMIT = 300
"""Characters of the encoder's own error quoted in a RUN_ERROR message."""


def consumer_for(run_input: RunAgentInput) -> EventConsumer:
    """A pipeline seeded with the request's transcript and state (a delta applies to that state);
    it logs its own warnings."""
    messages = [m.model_dump(mode="json", by_alias=True) for m in run_input.messages]
    return EventConsumer(messages, run_input.state)


Encode = Callable[[BaseEvent], bytes]
"""Turns one event into the bytes of the response (an SSE ``data:`` line); raises when it cannot."""


class UnencodableEvent(Exception):
    """An event the encoder refused: it never reached the client, and the run stops there."""

    def __init__(self, event: BaseEvent, cause: Exception) -> None:
        self.event_type: str = event.type.value
        reason = escape_surrogates(f"{type(cause).__name__}: {cause}")
        if len(reason) > REASON_LIMIT:
            reason = reason[: REASON_LIMIT - 1] + "…"
        super().__init__(
            f"The server could not encode the agent's {self.event_type} event for the client ({reason}); "
            "the run was stopped there. Every value in an event must be JSON (str, number, bool, None, "
            "list, dict) and every string valid Unicode."
        )


class SentEvents:
    """What the client has actually been sent, checked by a verifier of its own.

    The consumer has accepted an event before it is encoded, so when encoding fails the consumer
    believes in an event the client never got (a START the client never saw, an END that never
    closed anything on the client's side). This verifier knows the stream as the client knows it,
    and fits the consumer's closing events to it.
    """

    def __init__(self, encode: Encode) -> None:
        self._encode = encode
        self._verifier = EventVerifier()

    def send(self, event: BaseEvent) -> bytes:
        """The encoded event, now counted as sent; :class:`UnencodableEvent` when it cannot be."""
        try:
            chunk = self._encode(event)
        except Exception as exc:
            raise UnencodableEvent(event, exc) from exc
        self._verifier.check(event)
        return chunk

    def closing(self, closing: list[BaseEvent]) -> list[bytes]:
        """The consumer's closing events, as the client needs them.

        An END for something the client never saw open is left out; whatever the client still
        has open (its END was not sent) is closed before the RUN_ERROR.
        """
        chunks: list[bytes] = []
        for event in closing:
            still_open = self._verifier.open_events() if event.type == EventType.RUN_ERROR else []
            for item in [*still_open, event]:
                chunk = self._closing_chunk(item)
                if chunk is not None:
                    chunks.append(chunk)
        return chunks

    def _closing_chunk(self, event: BaseEvent) -> bytes | None:
        """The encoded closing event, or None when the client must not (or cannot) get it."""
        try:
            chunk = self._encode(event)
            self._verifier.check(event)
        except ProtocolError:  # an END for something the client never saw open
            return None
        except Exception:
            log.warning("agui-widget: could not encode the closing %s event of a served run", event.type.value, exc_info=True)
            return None
        return chunk


async def served_chunks(agent: Agent, run_input: RunAgentInput, consumer: EventConsumer, encode: Encode) -> AsyncIterator[bytes]:
    """The encoded events of one run, valid AG-UI whatever the agent does.

    Events are encoded here, one by one as the consumer delivers them, so an event that cannot
    be encoded ends the run like any other failure: what the client has open is closed and a
    RUN_ERROR says which event it was. The agent's generator is always closed: when the run ends,
    when it fails, and when the client disconnects (the cancellation reaches this generator, which
    closes the agent's in a shielded scope so its cleanup runs). The run counts itself in
    :data:`~agui_widget.server._memory.IDLE_RELEASE` while it streams.
    """
    sent = SentEvents(encode)
    stream = None
    IDLE_RELEASE.run_started()
    try:
        try:
            stream = agent.run(run_input)
            async for event in stream:
                try:
                    delivered = consumer.consume(event)
                except ProtocolError as exc:
                    for item in exc.delivered:
                        yield sent.send(item)
                    raise
                for item in delivered:
                    yield sent.send(item)
                if consumer.last_run_finished is not None or consumer.last_run_error is not None:
                    return
            consumer.end_of_stream()  # raises when a run was left open
            raise ProtocolError("the agent's event stream ended before any run started (no RUN_STARTED)")
        except UnencodableEvent as exc:
            log.exception("agui-widget: could not encode the served agent's %s event", exc.event_type)
            message, code = str(exc), "agent_error"
        except ProtocolError as exc:
            message, code = f"The agent broke the AG-UI protocol: {exc}", "protocol_error"
        except Exception as exc:
            log.exception("agui-widget: the served agent failed")
            message, code = describe_exception(exc)
        for chunk in sent.closing(_closing(consumer, run_input, escape_surrogates(message), code)):
            yield chunk
    finally:
        try:
            await _close(stream)
        finally:
            IDLE_RELEASE.run_ended()  # the worker's last run: its memory goes back soon after


def _closing(consumer: EventConsumer, run_input: RunAgentInput, message: str, code: str) -> list[BaseEvent]:
    """The consumer's closing events for a failed run, as delivered (or as they are, when broken)."""
    delivered: list[BaseEvent] = []
    for event in consumer.error_closing(run_input.thread_id, run_input.run_id, message, code):
        try:
            delivered.extend(consumer.consume(event))
        except ProtocolError:  # already broken: the closing event still goes out
            log.warning("agui-widget: could not close the served run cleanly at %s", event.type)
            delivered.append(event)
    return delivered


async def _close(stream: object) -> None:
    aclose = getattr(stream, "aclose", None)
    if aclose is None:
        return
    with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_TIMEOUT):
        try:
            await aclose()
        except Exception:
            log.debug("agui-widget: the agent's stream did not close cleanly", exc_info=True)
