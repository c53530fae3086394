"""One served run: the agent's events, held to the AG-UI rules before they go on the wire.

The same client pipeline the notebook session uses (:class:`~agui_widget._consumer.EventConsumer`:
normalise, expand chunks, verify, reduce) sits between the agent and the HTTP stream, so an agent
that breaks the protocol, raises, or stops without finishing gives the client a clean RUN_ERROR
instead of a stream its parser rejects. What the run did to the transcript and state is on the
consumer afterwards (for a thread store).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import anyio
from ag_ui.core import BaseEvent, RunAgentInput

from .._consumer import EventConsumer
from .._errors import describe_exception
from .._verify import ProtocolError
from ..adapters import Agent

log = logging.getLogger("agui_widget")

CLOSE_TIMEOUT = 5.0
"""Seconds an agent's generator gets to run its cleanup once the client has gone."""


def consumer_for(run_input: RunAgentInput) -> EventConsumer:
    """A pipeline seeded with the request's transcript and state (a delta applies to that state);
    it logs its own warnings."""
    messages = [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in run_input.messages]
    return EventConsumer(messages, run_input.state)


async def served_events(agent: Agent, run_input: RunAgentInput, consumer: EventConsumer) -> AsyncIterator[BaseEvent]:
    """The events of one run, valid AG-UI whatever the agent does.

    The agent's generator is always closed: when the run ends, when it fails, and when the client
    disconnects (the cancellation reaches this generator, which closes the agent's in a shielded
    scope so its cleanup runs).
    """
    stream = None
    try:
        try:
            stream = agent.run(run_input)
            async for event in stream:
                try:
                    delivered = consumer.consume(event)
                except ProtocolError as exc:
                    for item in exc.delivered:
                        yield item
                    raise
                for item in delivered:
                    yield item
                if consumer.last_run_finished is not None or consumer.last_run_error is not None:
                    return
            consumer.end_of_stream()  # raises when a run was left open
            raise ProtocolError("the agent's event stream ended before any run started (no RUN_STARTED)")
        except ProtocolError as exc:
            message, code = f"The agent broke the AG-UI protocol: {exc}", "protocol_error"
        except Exception as exc:
            log.exception("agui-widget: the served agent failed")
            message, code = describe_exception(exc)
        for item in _closing(consumer, run_input, message, code):
            yield item
    finally:
        await _close(stream)


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
