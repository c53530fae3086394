"""Files the view loads on demand, sent over the widget's comm rather than fetched from a server.

The chart renderer (``static/vega.js``: vega, vega-lite and vega-embed) is larger than the rest
of the view together, so it is not part of ``widget.js``: the first Vega-Lite chart a page draws
asks for it (docs/wire.md, ``asset``). A notebook opened offline still draws its charts.
"""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).parent.parent / "static"
ASSETS = {"vega": "vega.js", "a2ui": "a2ui.js"}
"""Asset name -> file in ``static/`` (built by ``js/scripts/build.mjs``)."""


def read_asset(name: str) -> tuple[str | None, str | None]:
    """``(source, None)``, or ``(None, why)`` when the file is unknown, missing or unreadable."""
    filename = ASSETS.get(name)
    if filename is None:
        return None, f"there is no asset named {name!r}"
    path = STATIC / filename
    try:
        return path.read_text(encoding="utf-8"), None
    except FileNotFoundError:
        return None, f"{filename} is missing from the agui_widget package (build the front end: cd js && npm run build)"
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{filename} could not be read: {exc}"
