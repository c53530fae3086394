"""Helpers shared by the browser tests of the chat's features and by the browser scripts.

- :func:`lab_session`: the harness of ``conftest.py`` (a Jupyter server on a free port with a
  temporary root, Debian's Chromium through Playwright) outside pytest, for
  ``scripts/screenshots.py`` and ``benchmarks/browser_latency.py``;
- JupyterLab's theme (:func:`set_lab_theme`), colours as the browser resolves them
  (:func:`colours`), their WCAG contrast (:func:`contrast`) and a text's (:func:`readable`);
- the chat's panels (:func:`show_panel`), the keyboard's way to a control (:func:`shift_tab_to`);
- a value from the kernel (:func:`kernel_json`) and a bounded wait on a condition in it
  (:func:`wait_in_kernel`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from playwright.sync_api import Locator, Page, expect, sync_playwright

from tests.browser.conftest import (
    CHROMIUM,
    CHROMIUM_ARGS,
    BrowserSession,
    ChatView,
    JupyterServer,
    NotebookPage,
)

LIGHT_THEME = "JupyterLab Light"
DARK_THEME = "JupyterLab Dark"
THEME_TIMEOUT = 30_000  # ms: a theme's CSS is loaded and applied


# -- the harness outside pytest -------------------------------------------------------------------


@contextlib.contextmanager
def lab_session(name: str = "script") -> Iterator[BrowserSession]:
    """A Jupyter server and a headless Chromium, as the browser tests use them, for a script.

    Everything is stopped on the way out: the notebooks' browser contexts and kernels, Chromium,
    then the server (whose temporary directory is removed)."""
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"no Chromium at {CHROMIUM}: install Debian's chromium or set AGUI_WIDGET_CHROMIUM")
    server = JupyterServer()
    try:
        server.start()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, timeout=60_000)
            session = BrowserSession(server, browser, name)
            try:
                yield session
            finally:
                session.close()
                with contextlib.suppress(Exception):
                    browser.close()
    finally:
        server.cleanup()


# -- JupyterLab's theme ---------------------------------------------------------------------------


def lab_theme(page: Page) -> dict[str, str | None]:
    """The theme JupyterLab applied: its name and whether it is light (from ``<body>``)."""
    return page.evaluate(
        "() => ({name: document.body.dataset.jpThemeName || null, light: document.body.dataset.jpThemeLight || null})"
    )


def set_lab_theme(page: Page, theme: str, timeout: float = THEME_TIMEOUT) -> None:
    """Settings > Theme: runs ``apputils:change-theme`` and waits until the theme is applied.

    The choice is a user setting of the server: a caller that changes it puts it back."""
    page.evaluate("t => window.jupyterapp.commands.execute('apputils:change-theme', {theme: t})", theme)
    light = "true" if theme == LIGHT_THEME else "false"
    page.wait_for_function(
        "([t, light]) => document.body.dataset.jpThemeName === t && document.body.dataset.jpThemeLight === light"
        " && getComputedStyle(document.body).getPropertyValue('--jp-layout-color1').trim() !== ''",
        arg=[theme, light],
        timeout=timeout,
    )


# -- colours --------------------------------------------------------------------------------------

# Resolves CSS colours as the browser paints them: the text colour of an element, and the colour
# behind it (the first ancestor whose background is not transparent, composited over white).
# A canvas turns any computed colour syntax (rgb(), color(srgb ...), color-mix results) into RGBA.
COLOURS_JS = r"""
(el) => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  const rgba = (css) => {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = "rgba(0, 0, 0, 0)";
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
    return [r, g, b, a / 255];
  };
  const layers = [];
  for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
    const bg = rgba(getComputedStyle(node).backgroundColor);
    if (bg[3] > 0) layers.push(bg);
    if (bg[3] >= 1) break;
  }
  let behind = [255, 255, 255];
  for (const [r, g, b, a] of layers.reverse()) behind = [r * a + behind[0] * (1 - a), g * a + behind[1] * (1 - a), b * a + behind[2] * (1 - a)];
  const fg = rgba(getComputedStyle(el).color);
  const text = [0, 1, 2].map((i) => fg[i] * fg[3] + behind[i] * (1 - fg[3]));
  return { text, background: behind, cssText: getComputedStyle(el).color, cssBackground: getComputedStyle(el).backgroundColor };
}
"""


def colours(element: Locator) -> dict[str, list[float] | str]:
    """``{"text": [r, g, b], "background": [r, g, b], ...}`` of an element, as painted."""
    return element.evaluate(COLOURS_JS)


def _luminance(rgb: Sequence[float]) -> float:
    def channel(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Sequence[float], b: Sequence[float]) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (1 to 21)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


# -- the chat's panels ----------------------------------------------------------------------------


def readable(element: Locator, what: str, minimum: float = 4.5) -> None:
    """The element's text has at least ``minimum`` contrast with what is painted behind it (WCAG:
    4.5 for text, 3 for large text and a control's icon)."""
    painted = colours(element)
    ratio = contrast(painted["text"], painted["background"])  # type: ignore[arg-type]
    assert ratio >= minimum, f"{what}: contrast {ratio:.2f} < {minimum} ({painted})"


def show_panel(chat: ChatView, which: str) -> Locator:
    """Opens the chat's "State" or "Events" panel from its toolbar; returns the panel."""
    button = chat.button({"state": "Show state", "events": "Show events"}[which])
    panel = chat.root.get_by_role("region", name={"state": "Shared state", "events": "Events"}[which], exact=True)
    if button.get_attribute("aria-pressed") != "true":
        button.click()
    expect(button, f"the {which} toggle should be pressed once clicked").to_have_attribute("aria-pressed", "true")
    expect(panel, f"the {which} panel did not open").to_be_visible()
    return panel


# -- the keyboard ---------------------------------------------------------------------------------

FOCUSED_CONTROL = """(root) => {
  const el = document.activeElement;
  if (!el || !root.contains(el)) return null;
  const row = el.closest("[data-row]");
  return { label: el.getAttribute("aria-label") || el.textContent.trim(), row: row ? row.getAttribute("data-row") : null };
}"""
"""The focused control inside a chat: its accessible name (or text) and the message row it is in."""


def shift_tab_to(chat: ChatView, label: str, row: str | None = None, *, max_tabs: int = 80) -> str | None:
    """Shift+Tab from where the focus is until it is on the control named ``label`` (in the row of
    message ``row``, when given); returns the row it is in. Fails with the controls the focus went
    through when ``max_tabs`` presses do not reach it."""
    seen = []
    for _ in range(max_tabs):
        chat.root.page.keyboard.press("Shift+Tab")
        focused = chat.root.evaluate(FOCUSED_CONTROL)
        seen.append(focused)
        if focused and focused["label"] == label and (row is None or focused["row"] == row):
            return focused["row"]
    raise AssertionError(f"Shift+Tab never reached {label!r} (row {row}); the focus went through {seen}")


# -- the kernel -----------------------------------------------------------------------------------


def kernel_json(notebook: NotebookPage, expression: str) -> Any:
    """The value of a Python expression in the notebook's kernel, through JSON."""
    out = notebook.run_cell(f"import json as _json\nprint(_json.dumps({expression}))").text
    return json.loads(out.strip().splitlines()[-1])


def wait_in_kernel(notebook: NotebookPage, condition: str, timeout: float = 20.0, *, show: str = "None") -> str:
    """Runs a cell that waits (asynchronously, so the chat keeps working) until the Python
    expression ``condition`` holds, for at most ``timeout`` seconds; fails with the value of
    ``show`` when it does not. Returns what the cell printed (``show``'s value as JSON)."""
    code = (
        "import asyncio as _asyncio, json as _json, time as _time\n"
        f"_deadline = _time.monotonic() + {timeout!r}\n"
        f"while not ({condition}) and _time.monotonic() < _deadline:\n"
        "    await _asyncio.sleep(0.05)\n"
        f"print(_json.dumps({{'ok': bool({condition}), 'show': {show}}}, default=str))"
    )
    cell = notebook.run_cell(code, timeout=(timeout + 30) * 1000)
    result = json.loads(cell.text.strip().splitlines()[-1])
    assert result["ok"], f"the kernel never reached `{condition}` within {timeout:.0f} s; {show} = {result['show']!r}"
    return json.dumps(result["show"])
