"""Attachments: files sent with a user message as AG-UI 1.0 media parts, from Python and from a
view, held to the chat's policy by the kernel, told about honestly by the demo agent, and kept in
the Markdown the notebook saves."""

from __future__ import annotations

import base64
import io

import pytest

from agui_widget import AgentChat, DemoAgent
from agui_widget.chat._export import to_markdown
from agui_widget.inputs._attachments import AttachmentPolicy, attachment_parts, image_size, sniff_mime

from .genui_support import Captured
from .support import png, until


def decoded(part: dict) -> bytes:
    return base64.b64decode(part["source"]["value"])


# -- making parts -------------------------------------------------------------------------------------


def test_paths_and_bytes_become_media_parts_with_their_type_and_name(tmp_path):
    picture = tmp_path / "plot.png"
    picture.write_bytes(png(3, 2))
    notes = tmp_path / "notes.md"
    notes.write_text("# hi")
    image, document, raw_pdf = attachment_parts([picture, str(notes), b"%PDF-1.7 ..."])
    assert image["type"] == "image" and image["source"]["mimeType"] == "image/png"
    assert image["metadata"] == {"filename": "plot.png"} and decoded(image) == png(3, 2)
    assert document["type"] == "document" and document["source"]["mimeType"] == "text/markdown"
    assert raw_pdf["type"] == "document" and raw_pdf["source"]["mimeType"] == "application/pdf" and "metadata" not in raw_pdf
    assert sniff_mime(b"hello") == "text/plain" and sniff_mime(b"\xff\xfe\x00\x81") == "application/octet-stream"
    with pytest.raises(ValueError, match="cannot be read"):
        attachment_parts([tmp_path / "missing.png"])
    with pytest.raises(TypeError, match="PIL image, a matplotlib figure"):
        attachment_parts([object()])


def test_pil_images_figures_and_displayable_objects_become_pngs():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    figure, axes = plt.subplots(figsize=(2, 1), dpi=50)
    axes.plot([1, 2])

    class Drawing:
        def _repr_png_(self) -> bytes:
            return png(4, 4)

    from_pil, from_figure, from_repr = attachment_parts([Image.new("RGB", (7, 5)), figure, Drawing()])
    assert image_size(decoded(from_pil)) == (7, 5)
    assert decoded(from_figure).startswith(b"\x89PNG") and plt.get_fignums() == []
    assert image_size(decoded(from_repr)) == (4, 4)
    assert all(
        part["type"] == "image" and part["source"]["mimeType"] == "image/png" for part in (from_pil, from_figure, from_repr)
    )


def test_image_sizes_are_read_from_png_gif_and_jpeg_headers():
    from PIL import Image

    for kind in ("PNG", "GIF", "JPEG"):
        buffer = io.BytesIO()
        Image.new("RGB", (33, 17)).save(buffer, format=kind)
        assert image_size(buffer.getvalue()) == (33, 17), kind
    assert image_size(b"not an image") is None


# -- the policy ----------------------------------------------------------------------------------------


def test_the_policy_refuses_with_a_reason_a_user_can_act_on():
    policy = AttachmentPolicy.of({"accept": "image/*", "max_bytes": 100, "max_files": 2, "max_total_bytes": 150})
    image = attachment_parts([png(2, 2)])[0]
    policy.check([{"type": "text", "text": "hi"}, image])
    big = attachment_parts([png(2, 2) + bytes(200)])[0]
    with pytest.raises(ValueError, match=r"the image is \d+ B; this chat takes files up to 100 B"):
        policy.check([big])
    with pytest.raises(ValueError, match="application/pdf is not a type this chat takes"):
        policy.check(attachment_parts([b"%PDF-1.7"]))
    with pytest.raises(ValueError, match="3 attachments is more than this chat takes at once"):
        policy.check([image, image, image])
    with pytest.raises(ValueError, match="this chat takes no attachments"):
        AttachmentPolicy.of(False).check([image])
    with pytest.raises(TypeError, match="unknown options"):
        AttachmentPolicy.of({"max_size": 1})
    assert AttachmentPolicy.of(None) == AttachmentPolicy()


# -- through a chat --------------------------------------------------------------------------------------


async def test_python_sends_attachments_and_the_demo_agent_says_what_it_got(tmp_path):
    picture = tmp_path / "plot.png"
    picture.write_bytes(png(64, 48))
    chat = AgentChat(DemoAgent(delay=0))
    run = await chat.send("what is this?", attachments=[picture, b"%PDF-1.7 tiny"])
    user = chat.messages[0]
    assert [part["type"] for part in user["content"]] == ["text", "image", "document"]
    assert "plot.png (image/png, " in run.reply and "64×48 pixels" in run.reply
    assert "an unnamed document (application/pdf, 13 B)" in run.reply
    assert "not what is in them" in run.reply, "the demo is honest about what it cannot see"


async def test_a_view_sends_attachments_and_the_kernel_holds_them_to_the_policy():
    chat = Captured(DemoAgent(delay=0), attachments={"max_bytes": 1000})
    assert chat.attachment_policy["maxBytes"] == 1000 and chat.attachment_policy["enabled"] is True
    small = base64.b64encode(png(2, 2)).decode()
    part = {
        "type": "image",
        "source": {"type": "data", "value": small, "mimeType": "image/png"},
        "metadata": {"filename": "a.png"},
    }
    chat.view_says({"kind": "send", "text": "", "attachments": [part]})
    await until(lambda: chat.status == "idle" and len(chat.messages) == 2)
    assert chat.messages[0]["content"] == [part], "a message of an attachment alone"
    assert "a.png (image/png" in chat.messages[-1]["content"]

    huge = {**part, "source": {**part["source"], "value": base64.b64encode(b"\x89PNG" + bytes(5000)).decode()}}
    chat.view_says({"kind": "send", "text": "and this", "attachments": [huge]})
    [notice] = chat.of_kind("notice")
    assert notice["text"].startswith("send: a.png is 4.9 KB; this chat takes files up to 1000 B")
    assert len(chat.messages) == 2, "nothing of the refused message was kept"
    chat.view_says({"kind": "send", "text": " "})
    assert "needs some text or an attachment" in chat.of_kind("notice")[-1]["text"]


async def test_editing_a_message_keeps_its_attachments():
    chat = AgentChat(DemoAgent(delay=0))
    await chat.send("first", attachments=[png(2, 2)])
    await chat.edit(chat.messages[0]["id"], "second")
    content = chat.messages[0]["content"]
    assert content[0] == {"type": "text", "text": "second"} and content[1]["type"] == "image"


def test_the_saved_markdown_shows_small_images_and_names_the_rest():
    small = attachment_parts([png(2, 2)])[0] | {"metadata": {"filename": "tiny [1].png"}}
    large = attachment_parts([png(400, 400) + bytes(70_000)])[0] | {"metadata": {"filename": "big.png"}}
    document = attachment_parts([b"%PDF-1.7"])[0]
    markdown = to_markdown([{"id": "u", "role": "user", "content": [{"type": "text", "text": "look"}, small, large, document]}])
    assert f"![tiny (1).png](data:image/png;base64,{small['source']['value']})" in markdown
    assert "📎 *big.png* (image/png, 69.6 KB, 400×400 pixels)" in markdown and "400×400 pixels" in markdown
    assert "📎 *the document* (application/pdf, 8 B)" in markdown
    assert large["source"]["value"] not in markdown, "a big image is not copied into the notebook"


def test_a_part_by_url_is_taken_by_its_kind_when_it_names_no_type():
    policy = AttachmentPolicy()
    policy.check([{"type": "image", "source": {"type": "url", "value": "https://example.org/cat"}}])
    with pytest.raises(ValueError, match="application/octet-stream is not a type"):
        policy.check([{"type": "document", "source": {"type": "url", "value": "https://example.org/file"}}])
