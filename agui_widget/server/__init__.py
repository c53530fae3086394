"""Serving agents over AG-UI: ``create_app(agent)`` is a FastAPI app, ``agui-widget serve`` runs one.

Needs the ``server`` extra: ``pip install "agui-widget[server]"`` (FastAPI and uvicorn).
"""

from __future__ import annotations

try:
    import fastapi  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError('agui_widget.server needs FastAPI: pip install "agui-widget[server]"') from exc

from ._agents import ServedAgent
from ._app import create_app
from ._auth import bearer_tokens
from ._runs import ServedRun

__all__ = ["ServedAgent", "ServedRun", "bearer_tokens", "create_app"]
