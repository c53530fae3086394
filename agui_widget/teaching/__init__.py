"""Helpers for lessons and classes (docs/teaching.md): what every lesson needs, written once.

* :func:`lesson_chat`: the chat a lesson shows; a class can replay a recorded session instead
  (``AGUI_REPLAY_DIR``) or record one (``AGUI_RECORD_DIR``).
* :func:`pick_model` / :func:`langroid_model`: a real model when the environment names one (a
  local OpenAI-compatible server, or an API key), else None for the lesson's offline stand-in.
* :func:`events_table`: AG-UI events as a small table, token deltas folded.
* :func:`answer_from_python`: answer what a run waits for from a cell, unless a view answered.
* :class:`ReplayAgent` and :func:`example_recording`: recordings played back as an agent.
"""

from __future__ import annotations

from ..adapters import ReplayAgent
from ._classroom import example_recording, lesson_chat
from ._lessons import answer_from_python, events_table
from ._models import langroid_model, pick_model

__all__ = [
    "ReplayAgent",
    "answer_from_python",
    "events_table",
    "example_recording",
    "langroid_model",
    "lesson_chat",
    "pick_model",
]
