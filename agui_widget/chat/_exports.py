"""``AgentChat``'s export methods: the conversation as Markdown, JSON, a recording and a notebook.

A mixin of ``AgentChat`` (its public API stays on the chat); the formats themselves are
``_export`` (Markdown, JSON, the kept conversation) and ``_notebook``.
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import TYPE_CHECKING, Any

from ._export import to_json_document, to_markdown

if TYPE_CHECKING:
    from ..session._session import Session
    from ._threads import Threads
    from ._view_link import ViewLink


class ChatExports:
    """The conversation written out, for people (Markdown, a notebook) and for programs (JSON, a
    recording)."""

    if TYPE_CHECKING:  # what the methods read of the chat
        messages: list[dict[str, Any]]
        state: Any
        thread_id: str
        _threads: Threads
        _session: Session
        _link: ViewLink

        def _assistant_label(self) -> str | None: ...  # ChatBranding's

    # -- export ---------------------------------------------------------------------------------

    def to_markdown(self) -> str:
        """The conversation (and the state, when there is one) as Markdown."""
        return to_markdown(self.messages, state=self.state, assistant=self._assistant_label())

    def to_json(self, indent: int | None = 2) -> str:
        """The thread as JSON: ``threadId``, ``agent``, ``messages`` (AG-UI: the branch shown),
        ``state``, and ``branches`` (the versions Regenerate and Edit kept, when there are any).

        ``AgentChat(agent, thread_id=d["threadId"], messages=d["messages"], state=d["state"])``
        with ``d = json.loads(text)`` continues it.
        """
        document = to_json_document(self.thread_id, self.messages, self.state, self._threads.agent_name)
        if self._session.branches.forks:
            document["branches"] = self._session.branches.to_json()
        return json.dumps(document, ensure_ascii=False, indent=indent)

    def to_notebook(self, path: str | os.PathLike[str]) -> pathlib.Path:
        """Write the conversation to ``path`` as a Jupyter notebook that runs again, and return the path.

        Each message is a Markdown cell; the code the agent ran (``run_python``) and each call of a
        Python tool, written as a call of its function (``top_customers(n=3)``), are code cells
        with the outputs the chat showed. A first code cell says where the tools' functions come
        from (define or import them before running). Calls of other tools, and denied ones, are
        notes. The file is valid nbformat (checked before writing) and replaced at once.
        """
        from ._notebook import notebook_of, write_notebook  # nbformat loads with the first notebook

        notebook = notebook_of(
            self.messages,
            self._session.tools,
            agent=self._agent_label(),
            thread_id=self.thread_id,
            assistant=self._assistant_label(),
        )
        return write_notebook(notebook, path)

    def _agent_label(self) -> str:
        """What answered, for people: the agent's name in the chat, else its own name or class."""
        agent = self._session.agent
        return str(self._threads.agent_name or getattr(agent, "name", None) or type(agent).__name__)

    # -- recordings -----------------------------------------------------------------------------

    def to_recording(self, label: str | None = None) -> str:
        """The runs this chat keeps (its newest 100) as a recording: what each run sent the agent
        (its ``RunAgentInput``) and the events that came back, with their times (docs/recordings.md).

        ``ReplayAgent`` plays it back with no model and no network. ``label`` says what it is,
        e.g. which model answered; ``AgentChat(record=path)`` writes every run as it ends instead.
        """
        from ..pipeline._recording import recording_text

        return recording_text(self._link.recording_header(label), self._session.recordings.runs)

    def save_recording(self, path: str | os.PathLike[str], label: str | None = None) -> pathlib.Path:
        """Write :meth:`to_recording` to ``path`` (replacing the file) and return the path."""
        target = pathlib.Path(path)
        target.write_text(self.to_recording(label), encoding="utf-8")
        return target


__all__ = ["ChatExports"]
