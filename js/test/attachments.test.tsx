/** Attachments: the composer takes files by paste, drop and picker within the chat's policy, shows
 * each before sending (removable), refuses what breaks a limit with the reason, and sends them as
 * AG-UI media parts; the transcript shows a sent message's images and files. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeModel, doc, until, untilSent } from "./dom";
import { button, connected, maybeButton, textbox } from "./mount";
import { accepts, attachmentInfo, refusal } from "../src/logic/attachments";
import type { AttachmentPolicy } from "../src/kernel/wire";

const POLICY: AttachmentPolicy = { enabled: true, accept: ["image/*", "application/pdf"], maxBytes: 1000, maxFiles: 3, maxTotalBytes: 1500 };
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const win = doc.defaultView as unknown as typeof globalThis;

// Object URLs for thumbnails: jsdom has none.
(URL as unknown as { createObjectURL: (b: Blob) => string }).createObjectURL = (b: Blob) => `blob:thumb-${(b as File).name}`;
(URL as unknown as { revokeObjectURL: (u: string) => void }).revokeObjectURL = () => undefined;

const file = (name: string, type: string, size = 10, bytes?: Uint8Array) => new File([(bytes ?? new Uint8Array(size)) as BlobPart], name, { type });

/** A paste or drop event carrying files, as a browser makes it (jsdom has no DataTransfer). */
function filesEvent(type: "paste" | "dragover" | "drop", files: File[], text = ""): Event {
  const event = new win.Event(type, { bubbles: true, cancelable: true });
  const data = { files, types: ["Files"], getData: (kind: string) => (kind === "text/plain" ? text : ""), dropEffect: "none" };
  Object.defineProperty(event, type === "paste" ? "clipboardData" : "dataTransfer", { value: data });
  return event;
}

async function composerWith(policy: AttachmentPolicy = POLICY) {
  const view = await connected([], new FakeModel({ attachment_policy: policy }));
  const box = textbox(view.el, "Message") as HTMLTextAreaElement;
  const composer = view.el.querySelector(".agui-composer") as HTMLElement;
  return { ...view, box, composer };
}

const held = (el: HTMLElement) => [...el.querySelectorAll('[aria-label="Attached to the next message"] [role="listitem"]')];
const problem = (el: HTMLElement) => el.querySelector(".agui-attach-problem[role=alert]")?.textContent ?? "";

/** The `send` requests, once `count` are sent (the files are read first, which takes turns). */
const sent = (model: FakeModel, count = 1) => untilSent(model, "send", count);

describe("the attachment policy, as the composer applies it", () => {
  it("names the first file over a limit, with the limit", () => {
    const f = (name: string, size: number, type = "image/png") => ({ name, size, type });
    assert.equal(accepts(POLICY, "image/webp"), true);
    assert.equal(accepts(POLICY, "text/csv"), false);
    assert.equal(accepts({ ...POLICY, accept: [] }, "text/csv"), true);
    assert.equal(refusal(POLICY, [], [f("a.png", 10)]), null);
    assert.equal(refusal(POLICY, [], [f("data.csv", 10, "text/csv")]), "data.csv: text/csv is not a type this chat takes (image/*, application/pdf).");
    assert.equal(refusal(POLICY, [], [f("big.png", 2048)]), "big.png is 2.0 KB; this chat takes files up to 1000 B.");
    assert.equal(refusal(POLICY, [f("a.png", 900)], [f("b.png", 900)]), "The attachments add up to 1.8 KB; this chat takes up to 1.5 KB per message.");
    assert.equal(refusal(POLICY, [f("a", 1), f("b", 1)], [f("c", 1), f("d", 1)]), "This chat takes up to 3 attachments per message.");
    assert.equal(refusal({ ...POLICY, enabled: false }, [], [f("a.png", 1)]), "This chat takes no attachments.");
  });

  it("reads what to show from a part: a data or https image, never a script URL", () => {
    const png = { type: "image", source: { type: "data", value: "iVBORw0KGgo=", mimeType: "image/png" }, metadata: { filename: "plot.png" } };
    assert.deepEqual(attachmentInfo(png), { kind: "image", name: "plot.png", mimeType: "image/png", size: 8, imageSrc: "data:image/png;base64,iVBORw0KGgo=", context: null });
    const mention = { type: "document", source: { type: "data", value: "aGk=", mimeType: "text/plain" }, metadata: { filename: "@df", agui_widget: { context: "variable" } } };
    assert.equal(attachmentInfo(mention)?.context, "variable", "context is told apart from a file");
    assert.equal(attachmentInfo({ ...mention, metadata: { filename: "@df", agui_widget: { context: 3 } } })?.context, null);
    assert.equal(attachmentInfo({ type: "image", source: { type: "url", value: "https://example.org/a/cat.jpg?x=1" } })?.name, "cat.jpg");
    assert.equal(attachmentInfo({ type: "image", source: { type: "url", value: "https://example.org/cat.jpg" } })?.imageSrc, "https://example.org/cat.jpg");
    assert.equal(attachmentInfo({ type: "image", source: { type: "url", value: "javascript:alert(1)" } })?.imageSrc, null);
    assert.equal(attachmentInfo({ type: "image", source: { type: "data", value: '"><img src=x onerror=alert(1)>', mimeType: "image/png" } })?.imageSrc, null);
    assert.equal(attachmentInfo({ type: "image", source: { type: "data", value: "AAAA", mimeType: "text/html" } })?.imageSrc, null);
    assert.equal(attachmentInfo({ type: "text", text: "hi" }), null);
    assert.equal(attachmentInfo({ type: "document", source: { type: "data", value: "AAAA", mimeType: "application/pdf" } })?.name, "document");
  });
});

describe("the composer", () => {
  it("takes a pasted image and a dropped PDF, shows both, and sends them as media parts", async () => {
    const { model, el, box, composer } = await composerWith();
    box.dispatchEvent(filesEvent("paste", [file("shot.png", "image/png", 0, PNG)]));
    const over = filesEvent("dragover", [file("report.pdf", "application/pdf", 20)]);
    composer.dispatchEvent(over);
    assert.equal(over.defaultPrevented, true, "the chat takes the drop, not the notebook");
    composer.dispatchEvent(filesEvent("drop", [file("report.pdf", "application/pdf", 20)]));
    await until(() => held(el).length === 2, "both files held");
    const thumb = el.querySelector(".agui-held img") as HTMLImageElement;
    assert.equal(thumb.getAttribute("alt"), "shot.png");
    assert.match(el.querySelector(".agui-held .agui-file-chip")?.textContent ?? "", /report\.pdf.*20 B/);

    box.value = "what is in these?";
    box.dispatchEvent(new win.Event("input", { bubbles: true }));
    button(el, "Send").click();
    const [request] = await sent(model);
    assert.equal(request?.text, "what is in these?");
    assert.deepEqual(request?.attachments, [
      { type: "image", source: { type: "data", value: Buffer.from(PNG).toString("base64"), mimeType: "image/png" }, metadata: { filename: "shot.png" } },
      { type: "document", source: { type: "data", value: Buffer.from(new Uint8Array(20)).toString("base64"), mimeType: "application/pdf" }, metadata: { filename: "report.pdf" } },
    ]);
    await until(() => held(el).length === 0, "sent: the previews go");
    assert.equal(box.value, "");
  });

  it("refuses a file over a limit with the reason, keeps the others, and lets one be removed", async () => {
    const { model, el, box } = await composerWith();
    box.dispatchEvent(filesEvent("paste", [file("a.png", "image/png"), file("b.png", "image/png")]));
    await until(() => held(el).length === 2, "the two pasted files held");
    box.dispatchEvent(filesEvent("paste", [file("huge.png", "image/png", 5000)]));
    await until(() => problem(el) !== "", "the refusal said");
    assert.equal(problem(el), "huge.png is 4.9 KB; this chat takes files up to 1000 B.");
    assert.equal(held(el).length, 2, "the files already held stay");
    button(el, "Remove a.png").click();
    await until(() => held(el).length === 1, "a.png removed");
    assert.equal(problem(el), "", "the message goes once the user acts");
    assert.equal(doc.activeElement, box, "the keyboard goes back to the message box");
    // A message of files alone is a message.
    button(el, "Send").click();
    const [request] = await sent(model);
    assert.equal(request?.text, "");
    assert.deepEqual((request?.attachments as Array<{ metadata: unknown }>).map((a) => a.metadata), [{ filename: "b.png" }]);
  });

  it("picks files with the Attach button's file input, limited to the accepted types", async () => {
    const { el } = await composerWith();
    const attach = button(el, "Attach files");
    const input = el.querySelector('.agui-composer input[type="file"]') as HTMLInputElement;
    assert.equal(input.accept, "image/*,application/pdf");
    let opened = false;
    input.addEventListener("click", () => (opened = true));
    attach.click();
    assert.ok(opened, "the Attach button opens the file picker");
    Object.defineProperty(input, "files", { value: [file("c.png", "image/png")], configurable: true });
    input.dispatchEvent(new win.Event("change", { bubbles: true }));
    await until(() => held(el).length === 1, "the picked file held");
  });

  it("offers no Attach button when the chat takes no attachments, and says so for a pasted file", async () => {
    const { el, box } = await composerWith({ ...POLICY, enabled: false });
    assert.equal(maybeButton(el, "Attach files"), null);
    box.dispatchEvent(filesEvent("paste", [file("a.png", "image/png")]));
    await until(() => problem(el) !== "", "the refusal said");
    assert.equal(problem(el), "This chat takes no attachments.");
    assert.equal(held(el).length, 0);
  });
});

describe("a sent message's attachments", () => {
  it("show an image as a thumbnail and another file as a chip with its name and size", async () => {
    const message = {
      id: "u1",
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image", source: { type: "data", value: Buffer.from(PNG).toString("base64"), mimeType: "image/png" }, metadata: { filename: "plot.png" } },
        { type: "document", source: { type: "data", value: Buffer.from("hello").toString("base64"), mimeType: "text/plain" }, metadata: { filename: "notes.txt" } },
      ],
    };
    const { el } = await connected([message]);
    const bubble = el.querySelector(".agui-bubble-user") as HTMLElement;
    assert.match(bubble.textContent ?? "", /^look/);
    const img = bubble.querySelector('[aria-label="Attachments"] img') as HTMLImageElement;
    assert.equal(img.getAttribute("alt"), "plot.png");
    assert.ok(img.getAttribute("src")?.startsWith("data:image/png;base64,iVBOR"));
    assert.match(bubble.querySelector(".agui-file-chip")?.textContent ?? "", /notes\.txt\s*5 B/);
  });

  it("name context as such: a mentioned variable, an error and its cell", async () => {
    const context = (filename: string, what: string) => ({
      type: "document",
      source: { type: "data", value: Buffer.from("summary").toString("base64"), mimeType: "text/plain" },
      metadata: { filename, agui_widget: { context: what } },
    });
    const message = { id: "u1", role: "user", content: [{ type: "text", text: "why?" }, context("@df", "variable"), context("error.txt", "error"), context("cell.py", "cell")] };
    const { el } = await connected([message]);
    const chips = [...el.querySelectorAll(".agui-bubble-user .agui-context-chip")];
    assert.deepEqual(
      chips.map((chip) => [chip.querySelector(".agui-file-kind")?.textContent, chip.querySelector(".agui-file-name")?.textContent]),
      [["variable", "@df"], ["error", "error.txt"], ["cell", "cell.py"]],
    );
  });
});
