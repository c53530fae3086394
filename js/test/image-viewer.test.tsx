/** An attached image shows its file name and opens full size in a modal dialog (named, with a
 * Close button, Escape closes it, focus goes back to the thumbnail); a file's chip names its kind
 * by one rule before and after sending. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeModel, doc } from "./dom";
import { button, connected, press, textbox, until } from "./mount";
import { kindLabel } from "../src/logic/attachments";
import type { AttachmentPolicy } from "../src/kernel/wire";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString("base64");
const win = doc.defaultView as unknown as typeof globalThis;

// Object URLs for the composer's thumbnails: jsdom has none.
(URL as unknown as { createObjectURL: (b: Blob) => string }).createObjectURL = (b: Blob) => `blob:thumb-${(b as File).name}`;
(URL as unknown as { revokeObjectURL: (u: string) => void }).revokeObjectURL = () => undefined;

const imagePart = (filename?: string) => ({
  type: "image",
  source: { type: "data", value: PNG, mimeType: "image/png" },
  ...(filename ? { metadata: { filename } } : {}),
});
const textFile = { type: "document", source: { type: "data", value: Buffer.from("hello").toString("base64"), mimeType: "text/plain" }, metadata: { filename: "notes.txt" } };
const userMessage = (...parts: unknown[]) => ({ id: "u1", role: "user", content: [{ type: "text", text: "look" }, ...parts] });

/** A paste carrying files, as a browser makes it (jsdom has no DataTransfer). */
function paste(target: Element, files: File[]): void {
  const event = new win.Event("paste", { bubbles: true, cancelable: true });
  Object.defineProperty(event, "clipboardData", { value: { files, types: ["Files"], getData: () => "" } });
  target.dispatchEvent(event);
}

const POLICY: AttachmentPolicy = { enabled: true, accept: [], maxBytes: 10_000, maxFiles: 3, maxTotalBytes: 20_000 };
const composing = () => connected([], new FakeModel({ attachment_policy: POLICY }));

const viewer = (el: HTMLElement) => el.querySelector('[role="dialog"]') as HTMLElement | null;

describe("an attached image", () => {
  it("shows its file name under the thumbnail in a sent message", async () => {
    const { el } = await connected([userMessage(imagePart("plot.png"))]);
    const figure = el.querySelector(".agui-bubble-user .agui-thumb") as HTMLElement;
    assert.equal(figure.querySelector(".agui-thumb-name")?.textContent, "plot.png");
    assert.equal(figure.querySelector("img")?.getAttribute("alt"), "plot.png");
  });

  it("opens full size from its thumbnail, in a named modal dialog that Escape closes, and gives focus back", async () => {
    const { el } = await connected([userMessage(imagePart("plot.png"))]);
    const thumb = el.querySelector(".agui-bubble-user .agui-thumb-open") as HTMLButtonElement;
    assert.equal(thumb.tagName, "BUTTON", "a button: Enter and Space open it too");
    assert.equal(thumb.getAttribute("aria-haspopup"), "dialog");
    assert.equal(thumb.querySelector("img")?.getAttribute("alt"), "plot.png", "the button is named by the image");
    assert.equal(viewer(el), null);

    thumb.focus();
    thumb.click();
    await until(() => viewer(el) !== null, "the image open in a dialog");
    const dialog = viewer(el) as HTMLElement;
    assert.ok(el.contains(dialog), "within the chat's own DOM");
    assert.equal(dialog.getAttribute("aria-modal"), "true");
    assert.equal(doc.getElementById(dialog.getAttribute("aria-labelledby") ?? "")?.textContent, "plot.png");
    const big = dialog.querySelector("img") as HTMLImageElement;
    assert.equal(big.getAttribute("src"), `data:image/png;base64,${PNG}`);
    assert.equal(big.getAttribute("alt"), "plot.png");
    const close = button(dialog, "Close");
    assert.equal(doc.activeElement, close, "focus goes to Close");

    const escape = press(close, "Escape");
    await until(() => viewer(el) === null, "Escape closes it");
    assert.equal(escape.defaultPrevented, true);
    assert.equal(doc.activeElement, thumb, "focus is back on the thumbnail");

    thumb.click();
    await until(() => viewer(el) !== null, "the image open again");
    button(viewer(el) as HTMLElement, "Close").click();
    await until(() => viewer(el) === null, "Close closes it");
    assert.equal(doc.activeElement, thumb);
  });

  it("shows its name and opens full size while it waits in the composer", async () => {
    const { el } = await composing();
    const box = textbox(el, "Message");
    paste(box, [new File([Buffer.from(PNG, "base64")], "shot.png", { type: "image/png" })]);
    await until(() => el.querySelector(".agui-held .agui-thumb-open") !== null, "the pasted image held");
    const held = el.querySelector(".agui-held") as HTMLElement;
    assert.equal(held.querySelector(".agui-thumb-name")?.textContent, "shot.png");
    (held.querySelector(".agui-thumb-open") as HTMLButtonElement).click();
    await until(() => viewer(el) !== null, "the held image open in a dialog");
    assert.equal(viewer(el)?.querySelector("img")?.getAttribute("src"), "blob:thumb-shot.png");
  });
});

describe("a file's kind on its chip", () => {
  it("follows one rule from the MIME type", () => {
    assert.equal(kindLabel("text/plain"), "text");
    assert.equal(kindLabel("text/plain; charset=utf-8"), "text");
    assert.equal(kindLabel("text/x-python"), "text");
    assert.equal(kindLabel("application/pdf"), "pdf");
    assert.equal(kindLabel("application/json"), "json");
    assert.equal(kindLabel("image/svg+xml"), "image");
    assert.equal(kindLabel("audio/mpeg"), "audio");
    assert.equal(kindLabel("application/zip"), "file");
    assert.equal(kindLabel("", "image"), "image", "a URL part that names no type: its kind");
    assert.equal(kindLabel("", "document"), "file");
  });

  it("is the same for a .txt file before sending and once sent", async () => {
    const before = await composing();
    paste(textbox(before.el, "Message"), [new File(["hello"], "notes.txt", { type: "text/plain" })]);
    await until(() => before.el.querySelector(".agui-held .agui-file-kind") !== null, "the pasted file held");
    const held = before.el.querySelector(".agui-held .agui-file-kind")?.textContent;
    before.cleanup();

    const after = await connected([userMessage(textFile)]);
    const sent = after.el.querySelector(".agui-bubble-user .agui-file-kind")?.textContent;
    assert.equal(held, "text");
    assert.equal(sent, held);
  });
});
