"""The `asset` request: a view asks for the chart renderer and the kernel answers with its text."""

from __future__ import annotations

import logging

import pytest

from agui_widget.chat import _assets
from tests.genui_support import Captured

VEGA_JS = _assets.STATIC / "vega.js"


def test_the_kernel_answers_an_asset_request_with_the_built_chart_renderer():
    assert VEGA_JS.exists(), "static/vega.js is missing: build the front end (cd js && npm run build)"
    chat = Captured()
    chat.view_says({"kind": "asset", "name": "vega"})
    [answer] = chat.of_kind("asset")
    assert answer["name"] == "vega"
    assert answer["error"] is None
    assert answer["source"] == VEGA_JS.read_text(encoding="utf-8")
    assert "draw" in answer["source"], "vega.js should export the draw function the view calls"


def test_a_missing_renderer_is_answered_with_the_reason_and_how_to_build_it(monkeypatch, tmp_path):
    monkeypatch.setattr(_assets, "STATIC", tmp_path)
    chat = Captured()
    chat.view_says({"kind": "asset", "name": "vega"})
    [answer] = chat.of_kind("asset")
    assert answer["source"] is None
    assert "vega.js is missing" in answer["error"]
    assert "npm run build" in answer["error"]


@pytest.mark.parametrize("name", ["../_widget.py", "widget.js", "", None])
def test_an_asset_the_kernel_does_not_offer_is_refused_and_nothing_is_read(name, caplog):
    chat = Captured()
    with caplog.at_level(logging.WARNING, logger="agui_widget"):
        chat.view_says({"kind": "asset", "name": name})
    assert chat.of_kind("asset") == []
    assert "malformed asset request" in caplog.text


def test_read_asset_names_only_the_files_it_offers():
    source, error = _assets.read_asset("widget")
    assert source is None
    assert error == "there is no asset named 'widget'"


@pytest.mark.parametrize("name", ["widget.js", "vega.js"])
def test_the_built_bundles_are_ascii(name):
    """The kernel reads widget.js when the first chat is made (and vega.js when a view asks):
    Python decodes an ASCII file several times faster than one with a character beyond it, and
    esbuild leaves regular expression literals unescaped (js/scripts/build.mjs escapes them)."""
    bundle = VEGA_JS.parent / name
    assert bundle.exists(), f"static/{name} is missing: build the front end (cd js && npm run build)"
    text = bundle.read_bytes()
    assert text.isascii(), f"{name} holds non-ASCII bytes at {next(i for i, b in enumerate(text) if b > 127)}"
