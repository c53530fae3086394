"""The chat a lesson shows, which a class can switch to a recorded session or to recording one.

``lesson_chat(name, agent, ...)`` is ``AgentChat(agent, ...)`` unless the environment says
otherwise (docs/teaching.md):

* ``AGUI_REPLAY_DIR``: a folder of recordings; when it holds ``<name>.agui.jsonl``, the chat
  replays that session (``ReplayAgent``: no key, no network) instead of running ``agent``.
  ``AGUI_REPLAY_SPEED`` scales its pace (``2`` twice as fast, ``0`` at once).
* ``AGUI_RECORD_DIR``: a folder; the chat records every run to ``<name>.agui.jsonl`` there,
  starting the file afresh, so running the lessons once with a real model makes the recordings
  a class replays later.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..adapters import ReplayAgent
from ..chat._widget import AgentChat
from ..pipeline._recording import SUFFIX

REPLAY_DIR = "AGUI_REPLAY_DIR"
RECORD_DIR = "AGUI_RECORD_DIR"
REPLAY_SPEED = "AGUI_REPLAY_SPEED"

_NAME = re.compile(r"[\w.-]+")


def lesson_chat(name: str, agent: Any = None, *, environ: Mapping[str, str] | None = None, **chat_kwargs: Any) -> AgentChat:
    """``AgentChat(agent, **chat_kwargs)``, or the recorded session ``name`` replayed, or recorded.

    ``name`` names the recording file (``<name>.agui.jsonl``): letters, digits, ``_``, ``-``, ``.``.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"lesson_chat() needs a name of letters, digits, '_', '-' or '.', not {name!r}")
    env = os.environ if environ is None else environ
    file = f"{name}{SUFFIX}"
    replay_dir = env.get(REPLAY_DIR)
    if replay_dir:
        path = Path(replay_dir).expanduser() / file
        if path.exists():
            replay = ReplayAgent(path, speed=_speed(env.get(REPLAY_SPEED)))
            made = replay.recording
            about = f" ({made.label})" if made.label else ""
            print(f"Replaying {path}: {len(replay.prompts)} recorded turns of {made.agent}{about}, no model needed.")
            return AgentChat(replay, **chat_kwargs)
        print(f"{REPLAY_DIR} has no {file}: this lesson's own agent answers.")
    record_dir = env.get(RECORD_DIR)
    if record_dir:
        folder = Path(record_dir).expanduser()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / file
        path.unlink(missing_ok=True)  # a lesson run again records afresh
        print(f"Recording every run to {path}.")
        return AgentChat(agent, record=path, **chat_kwargs)
    return AgentChat(agent, **chat_kwargs)


def _speed(text: str | None) -> float | None:
    if not text:
        return 1.0
    try:
        speed = float(text)
    except ValueError:
        raise ValueError(f"{REPLAY_SPEED} must be a number (1: the recorded pace, 0: at once), not {text!r}") from None
    if speed < 0:
        raise ValueError(f"{REPLAY_SPEED} must not be negative, not {text!r}")
    return None if speed == 0 else speed


def example_recording(name: str) -> Path:
    """A recording that ships with agui-widget (made with its offline agents, and labelled so)."""
    path = Path(__file__).parent.parent / "recordings" / f"{name}{SUFFIX}"
    if not path.exists():
        shipped = sorted(p.name.removesuffix(SUFFIX) for p in path.parent.glob(f"*{SUFFIX}"))
        raise FileNotFoundError(f"no example recording {name!r}; there are: {', '.join(shipped) or 'none'}")
    return path


__all__ = ["example_recording", "lesson_chat"]
