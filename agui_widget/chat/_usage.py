"""``AgentChat.usage``: the thread's token usage, turn by turn, read from the marks its answers
carry (so a thread loaded from a store, or switched back to, has its usage back)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..session._usage import thread_usage

if TYPE_CHECKING:
    from ..session._session import Session


class ChatUsage:
    """A mixin of ``AgentChat``: what its agent reported of the tokens it used."""

    if TYPE_CHECKING:
        _session: Session

    @property
    def usage(self) -> dict[str, Any]:
        """The current thread's token usage as its agent reported it: ``{"turns": [{"messageId",
        "model", "inputTokens", "outputTokens", "totalTokens"}, ...], "inputTokens": N,
        "outputTokens": N, "totalTokens": N}``, a turn per answer that carries usage (an agent
        that reports none leaves ``turns`` empty and the totals 0)."""
        return thread_usage(self._session.messages)
