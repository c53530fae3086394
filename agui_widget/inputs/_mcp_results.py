"""An MCP tool's result as the tool message answering its call, and a resource's contents as text.

The model reads the result's text (its structured content as JSON when it has no text); the card
shows its text, images and structured content (a display mark: one image alone as an image, a
mix as HTML the view sanitises, raster ``data:`` images allowed); the result itself, as the
server sent it, stays in the message's ``mcp`` mark for an MCP App to read. ``isError`` makes the
message an error the model can recover from, as a Python tool's exception does.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any

from ..vocabulary._content import to_json_text
from ..vocabulary._marks import DISPLAY, MCP, with_mark

if TYPE_CHECKING:
    from mcp.types import CallToolResult, ReadResourceResult

NOTHING = "(the tool returned nothing)"

_SHOWN_ALONE = ("image/png", "image/jpeg")
"""Image types a display bundle shows by themselves (others go in HTML as ``data:`` images)."""


def result_message(result: CallToolResult, remote_name: str) -> dict[str, Any]:
    """The tool message's parts (content, metadata, error) for a call's result."""
    texts, images = _parts(result)
    structured = result.structured_content
    said = texts + [f"({mime} image shown to the user)" for mime, _ in images]
    if said:
        text = "\n\n".join(said)
    else:
        text = to_json_text(structured) if structured is not None else NOTHING
    raw = result.model_dump(by_alias=True, exclude_none=True, mode="json")
    metadata = with_mark(None, MCP, {"result": raw, "tool": remote_name})
    bundle = _bundle(texts, images, structured, text)
    if bundle is not None:
        metadata = with_mark(metadata, DISPLAY, bundle)
    if result.is_error:
        error = text if text != NOTHING else f"{remote_name} failed"
        # The SDK's own errors start "Error executing tool": said once, not after another "Error:".
        said_error = error if error.lower().startswith("error") else f"Error: {error}"
        return {"content": said_error, "metadata": metadata, "error": error}
    return {"content": text, "metadata": metadata}


def resource_text(result: ReadResourceResult) -> str:
    """A resource's contents as the text a context entry sends (binary parts described)."""
    from mcp.types import TextResourceContents

    parts = []
    for contents in result.contents:
        if isinstance(contents, TextResourceContents):
            parts.append(contents.text)
        else:
            parts.append(f"({contents.mime_type or 'binary'} contents of {contents.uri}, not shown)")
    return "\n\n".join(parts)


def _parts(result: CallToolResult) -> tuple[list[str], list[tuple[str, str]]]:
    """The result's texts (other content described in words) and its images (MIME type, base64)."""
    from mcp.types import EmbeddedResource, ImageContent, ResourceLink, TextContent, TextResourceContents

    texts: list[str] = []
    images: list[tuple[str, str]] = []
    for block in result.content:
        if isinstance(block, TextContent):
            texts.append(block.text)
        elif isinstance(block, ImageContent):
            images.append((block.mime_type, block.data))
        elif isinstance(block, ResourceLink):
            texts.append(f"{block.name}: {block.uri}")
        elif isinstance(block, EmbeddedResource):
            inner = block.resource
            texts.append(
                inner.text
                if isinstance(inner, TextResourceContents)
                else f"(the resource {inner.uri}, {inner.mime_type or 'binary'})"
            )
        else:
            texts.append(f"({getattr(block, 'type', 'other')} content, not shown)")
    return texts, images


def _bundle(texts: list[str], images: list[tuple[str, str]], structured: Any, text: str) -> dict[str, Any] | None:
    """What the card shows when the text alone would not show it all; None when the text does."""
    extra_structure = structured is not None and texts and not _is_json_of(texts, structured)
    if not images and not extra_structure:
        return None
    if len(images) == 1 and not texts and images[0][0] in _SHOWN_ALONE:
        mime, data = images[0]
        return {mime: data, "text/plain": text}
    pieces = ["<p>" + html.escape(part).replace("\n", "<br>") + "</p>" for part in texts]
    pieces += [f'<img src="data:{html.escape(mime)};base64,{data}" alt="an image the tool returned">' for mime, data in images]
    if extra_structure:
        pieces.append("<pre>" + html.escape(json.dumps(structured, indent=2, ensure_ascii=False)) + "</pre>")
    return {"text/html": "\n".join(pieces), "text/plain": text}


def _is_json_of(texts: list[str], structured: Any) -> bool:
    """Whether the text is the structured content written as JSON, as the SDK writes it (a value
    that is no object travels as ``{"result": value}``, its text as the value's)."""
    try:
        values = [json.loads(text) for text in texts]
    except ValueError:
        return False
    wrapped = structured.get("result") if isinstance(structured, dict) and list(structured) == ["result"] else None
    return structured in (values[0] if len(values) == 1 else None, values) or wrapped in (values[0], values)


__all__ = ["resource_text", "result_message"]
