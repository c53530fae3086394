"""Attachments in a real JupyterLab, in Chromium: an image pasted into the message box and a file
dropped on it show as previews, one can be removed, and sending delivers both to the agent as
AG-UI media parts; a file over the chat's limit is refused with the reason; the transcript shows
what was sent after a reload. The demo agent says what it received."""

from __future__ import annotations

import base64

import pytest
from playwright.sync_api import expect

from tests.browser.helpers_ui import kernel_json
from tests.browser.test_tool_cards import FOLLOW_UP_TIMEOUT
from tests.support import png

pytestmark = pytest.mark.browser

CHAT = 'from agui_widget import AgentChat\n\nchat = AgentChat(attachments={"max_bytes": 200_000})\nchat'


# Makes files in the page and hands them over as a paste into the message box or a drop on it,
# as Chromium does when a user pastes a screenshot or drags a file from the desktop.
GIVE_FILES = """
(target, [how, files]) => {
  const transfer = new DataTransfer();
  for (const f of files) {
    const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
    transfer.items.add(new File([bytes], f.name, { type: f.type }));
  }
  if (how === "paste") {
    target.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
    return;
  }
  for (const type of ["dragenter", "dragover", "drop"]) {
    target.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }
}
"""


def file_spec(name: str, kind: str, data: bytes) -> dict[str, str]:
    return {"name": name, "type": kind, "base64": base64.b64encode(data).decode()}


def test_a_pasted_image_and_a_dropped_file_reach_the_agent_as_media_parts(lab):
    nb = lab.open([CHAT])
    chat = nb.chat()
    box = chat.message_box
    composer = chat.root.locator(".agui-composer")
    screenshot = png(40, 30, b"\x30\x90\xd0")

    box.evaluate(GIVE_FILES, ["paste", [file_spec("screenshot.png", "image/png", screenshot)]])
    composer.evaluate(GIVE_FILES, ["drop", [file_spec("notes.txt", "text/plain", b"buy milk\n")]])
    composer.evaluate(GIVE_FILES, ["drop", [file_spec("extra.txt", "text/plain", b"not this one")]])
    held = chat.root.get_by_role("list", name="Attached to the next message").get_by_role("listitem")
    expect(held, "three previews before sending").to_have_count(3)
    thumbnail = held.nth(0).get_by_role("img", name="screenshot.png")
    expect(thumbnail).to_be_visible()
    assert thumbnail.evaluate("img => img.naturalWidth") == 40, "the preview shows the pasted image"
    expect(held.nth(1)).to_contain_text("notes.txt")
    chat.button("Remove extra.txt").click()
    expect(held).to_have_count(2)

    # Over the limit: refused with the reason, the others stay.
    composer.evaluate(GIVE_FILES, ["drop", [file_spec("huge.png", "image/png", bytes(300_000))]])
    expect(chat.root.get_by_role("alert")).to_have_text("huge.png is 293.0 KB; this chat takes files up to 195.3 KB.")
    expect(held).to_have_count(2)

    chat.send("what did I attach?")
    reply = chat.wait_answer("You sent me 2 attachments", timeout=FOLLOW_UP_TIMEOUT)
    assert "screenshot.png (image/png, " in reply and "40×30 pixels" in reply, reply
    assert "notes.txt (text/plain, 9 B)" in reply, reply
    expect(held, "sent: the previews go").to_have_count(0)
    expect(chat.root.get_by_role("alert"), "and so does the refusal").to_have_count(0)

    parts = kernel_json(nb, "chat.messages[0]['content']")
    assert [p["type"] for p in parts] == ["text", "image", "document"]
    assert base64.b64decode(parts[1]["source"]["value"]) == screenshot and parts[1]["metadata"] == {"filename": "screenshot.png"}
    assert base64.b64decode(parts[2]["source"]["value"]) == b"buy milk\n"

    sent = chat.root.locator(".agui-bubble-user").get_by_role("list", name="Attachments")
    expect(sent.get_by_role("img", name="screenshot.png")).to_be_visible()
    expect(sent).to_contain_text("notes.txt")
    nb.save()
    nb.reload()
    chat = nb.chat()
    expect(
        chat.root.locator(".agui-bubble-user").get_by_role("img", name="screenshot.png"), "still there after a reload"
    ).to_be_visible()


def test_files_picked_with_the_attach_button_and_sent_from_python(lab):
    nb = lab.open([CHAT])
    chat = nb.chat()
    with nb.page.expect_file_chooser() as chooser:
        chat.button("Attach files").click()
    chooser.value.set_files(
        [
            {"name": "tiny.png", "mimeType": "image/png", "buffer": png(2, 2)},
            {"name": "data.json", "mimeType": "application/json", "buffer": b"{}"},
        ]
    )
    held = chat.root.get_by_role("list", name="Attached to the next message").get_by_role("listitem")
    expect(held).to_have_count(2)
    chat.message_box.press("Enter")
    chat.wait_answer("You sent me 2 attachments", timeout=FOLLOW_UP_TIMEOUT)

    nb.run_cell(
        "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots(figsize=(2, 1), dpi=50)\nax.plot([1, 3, 2])\n"
        "run = chat.send('and this figure?', attachments=[fig])"
    )
    reply = chat.wait_answer("You sent me an attachment", timeout=FOLLOW_UP_TIMEOUT)
    assert "an unnamed image (image/png, " in reply, reply
    expect(chat.root.locator(".agui-bubble-user").last.get_by_role("img")).to_be_visible()
