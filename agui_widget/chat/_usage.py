"""``AgentChat.usage``: the thread's token usage, turn by turn, read from the marks its answers
carry (so a thread loaded from a store, or switched back to, has its usage back); and
``context_window``, the model's window when it is known, for the view's context meter.

The window is never guessed from a model's name: it is what was given
(``AgentChat(context_window=...)``, or assigned), else what the agent says of its own model (a
LangChain chat model's profile, ``max_input_tokens``; any agent's ``context_window`` attribute).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import traitlets

from ..session._usage import thread_usage

if TYPE_CHECKING:
    from ..session._session import Session
    from ._threads import Threads


def context_window_of(agent: Any) -> int | None:
    """The context window (tokens) the agent reports for its model, or None when it reports none."""
    window = getattr(agent, "context_window", None)
    return window if isinstance(window, int) and not isinstance(window, bool) and window > 0 else None


class ChatUsage(traitlets.HasTraits):
    """A mixin of ``AgentChat``: what its agent reported of the tokens it used."""

    context_window = traitlets.Int(
        None, allow_none=True, min=1, help="the model's context window in tokens, when known: the view's context meter"
    ).tag(sync=True)

    if TYPE_CHECKING:
        _session: Session
        _threads: Threads

    @traitlets.default("context_window")
    def _agents_own_window(self) -> int | None:
        return context_window_of(self._threads.start.agent)

    @property
    def usage(self) -> dict[str, Any]:
        """The current thread's token usage as its agent reported it: ``{"turns": [{"messageId",
        "model", "inputTokens", "outputTokens", "totalTokens"}, ...], "inputTokens": N,
        "outputTokens": N, "totalTokens": N}``, a turn per answer that carries usage (an agent
        that reports none leaves ``turns`` empty and the totals 0)."""
        return thread_usage(self._session.messages)
