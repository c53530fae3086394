"""Screenshots of the chat in JupyterLab, light and dark, for the documentation.

Starts JupyterLab the way the browser tests do (a server on a free port of 127.0.0.1 with a
temporary root and configuration, Debian's Chromium through Playwright; see
``tests/browser/conftest.py``), opens a notebook on the demo agent with a title, run settings and
a thread store, has a first exchange, starts a new thread with ``/new``, has a short exchange
("weather in Paris", "add buy milk"), rates the weather answer, opens the Threads panel,
and saves the notebook area in JupyterLab's light and dark themes:

    docs/screenshots/chat-light.png
    docs/screenshots/chat-dark.png

Usage::

    python scripts/screenshots.py                 # into docs/screenshots/
    python scripts/screenshots.py --out DIR       # somewhere else
    python scripts/screenshots.py --width 1200    # the width of the pictures, in CSS pixels
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import expect  # noqa: E402

from tests.browser.helpers_ui import DARK_THEME, LIGHT_THEME, lab_session, set_lab_theme  # noqa: E402

NOTEBOOK = [
    "from agui_widget import AgentChat\n\n"
    "chat = AgentChat(\n"
    '    title="Demo agent",\n'
    '    store="chats.db",\n'
    '    settings={"model": ["small", "large"], "temperature": (0.0, 1.0, 0.2)},\n'
    ")\n"
    "chat",
]
FIRST_THREAD = ("plan a trip", "Planned")
EXCHANGE = [
    ("weather in Paris", "in Paris (made-up numbers"),
    ("add buy milk", "Added “buy milk”"),
]


def _settled(page) -> None:
    """No hover effects, no caret, fonts loaded, two frames painted."""
    page.mouse.move(1, 1)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.evaluate("() => document.fonts.ready")
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def _area(nb) -> dict[str, float]:
    """The notebook's cells, from the top of the first cell to the bottom of the chat."""
    panel = nb.page.locator(f'[id="{nb.panel_id}"]')
    cells = panel.locator(".jp-Notebook")
    chat = nb.chat_roots.first
    top = cells.bounding_box()
    bottom = chat.bounding_box()
    assert top is not None and bottom is not None, "the notebook is not on screen"
    return {
        "x": top["x"],
        "y": top["y"],
        "width": top["width"],
        "height": bottom["y"] + bottom["height"] + 16 - top["y"],
    }


def _shoot(nb, path: Path, clip: dict[str, float]) -> None:
    _settled(nb.page)
    nb.page.screenshot(path=str(path), clip=clip, animations="disabled", caret="hide")
    print(f"saved {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} ({clip['width']:.0f}×{clip['height']:.0f})")


def _exchange(chat) -> None:
    """A first thread, then a new one with a few turns, a rated answer and the Threads panel open."""
    chat.send(FIRST_THREAD[0])
    chat.wait_answer(FIRST_THREAD[1])
    chat.send("/new")
    expect(chat.assistant_texts, "/new starts an empty thread").to_have_count(0)
    chat.button("Dismiss /new").click()  # its card: "Started thread …"
    for text, answer in EXCHANGE:
        chat.send(text)
        chat.wait_answer(answer)
    weather = chat.root.locator(".agui-row").filter(has_text="made-up numbers")
    weather.hover()
    good = weather.get_by_role("button", name="Good answer", exact=True)
    good.click()
    expect(good).to_have_attribute("aria-pressed", "true")
    chat.button("Close comment").click()  # no comment
    chat.button("Show threads").click()
    threads = chat.root.get_by_role("region", name="Threads", exact=True)
    expect(threads.locator(".agui-thread"), "both threads are listed").to_have_count(2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--width", type=int, default=1200, help="width of the notebook area in CSS pixels")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with lab_session("screenshots") as lab:
        nb = lab.open(NOTEBOOK)
        page = nb.page
        # Only the notebook in the main area: no side bars, at the width asked for.
        page.evaluate("() => window.jupyterapp.commands.execute('application:set-mode', {mode: 'single-document'})")
        for side in ("left", "right"):
            page.evaluate(f"() => window.jupyterapp.shell.collapse{side.title()}()")
        page.set_viewport_size({"width": args.width, "height": 1400})
        notebook = page.locator(f'[id="{nb.panel_id}"] .jp-Notebook')
        width = (notebook.bounding_box() or {"width": args.width})["width"]
        page.set_viewport_size({"width": round(2 * args.width - width), "height": 1400})
        chat = nb.chat()
        _exchange(chat)
        nb.page.locator(f'[id="{nb.panel_id}"] .jp-Cell').first.click(position={"x": 2, "y": 2})  # command mode
        _settled(page)
        area = _area(nb)  # the same area in both themes
        _shoot(nb, args.out / "chat-light.png", area)
        set_lab_theme(page, DARK_THEME)
        _shoot(nb, args.out / "chat-dark.png", area)
        set_lab_theme(page, LIGHT_THEME)
    print(f"done in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
