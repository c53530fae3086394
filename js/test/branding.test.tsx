/** Branding: the chat's title, its welcome in an empty chat, the message box's placeholder, the
 * avatars beside messages and the assistant's name, all following the traits live; the welcome
 * is made safe as agent text is, and an avatar is never a script URL. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { avatarOf } from "../src/view/Branding";
import { FakeModel } from "./dom";
import { connected, textbox, until } from "./mount";

const conversation = [
  { id: "u1", role: "user", content: "a question" },
  { id: "a1", role: "assistant", content: "an answer" },
];

const welcomeOf = (el: ParentNode) => el.querySelector(".agui-welcome-text");
const authorNames = (el: ParentNode) => [...el.querySelectorAll(".agui-author-name")].map((n) => n.textContent);

describe("the chat's title", () => {
  it("is shown in the toolbar and follows the trait", async () => {
    const model = new FakeModel({ title: "Sales analyst" });
    const { el } = await connected([], model);
    const title = () => el.querySelector(".agui-toolbar .agui-chat-title");
    assert.equal(title()?.textContent, "Sales analyst");
    model.set("title", "Support");
    await until(() => title()?.textContent === "Support", "the new title");
    model.set("title", "");
    await until(() => title() === null, "no title");
  });

  it("is absent by default", async () => {
    const { el } = await connected([]);
    assert.equal(el.querySelector(".agui-chat-title"), null);
  });
});

describe("the welcome", () => {
  it("is Markdown shown in an empty chat instead of the default line, with the starters", async () => {
    const model = new FakeModel({ welcome: "# Hello\n\nAsk me about **sales**.", suggestions: [{ title: "Top", message: "top 3" }] });
    const { el } = await connected([], model);
    await until(() => welcomeOf(el)?.querySelector("strong")?.textContent === "sales", "the welcome rendered as Markdown");
    assert.equal(welcomeOf(el)?.querySelector("h1")?.textContent, "Hello");
    assert.doesNotMatch(el.textContent ?? "", /No messages yet/);
    assert.ok(el.querySelector(".agui-suggestions"), "the starters still shown");
  });

  it("goes once the conversation starts and comes back after Clear", async () => {
    const model = new FakeModel({ welcome: "Welcome, *friend*." });
    const { el } = await connected([], model);
    await until(() => welcomeOf(el) !== null, "the welcome");
    model.kernel({ kind: "messages", start: 0, messages: conversation });
    await until(() => welcomeOf(el) === null, "the welcome gone with the first message");
    model.kernel({ kind: "messages", start: 0, messages: [] });
    await until(() => welcomeOf(el)?.textContent?.includes("Welcome, friend.") === true, "the welcome back after Clear");
  });

  it("is not shown in a chat with messages", async () => {
    const { el } = await connected(conversation, new FakeModel({ welcome: "Hi" }));
    assert.equal(welcomeOf(el), null);
  });

  it("is sanitised as agent text is", async () => {
    const welcome = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>[click](javascript:alert(1)) <a href="javascript:alert(1)">a</a>';
    const { el } = await connected([], new FakeModel({ welcome }));
    await until(() => welcomeOf(el) !== null, "the welcome");
    const shown = welcomeOf(el) as Element;
    assert.equal(shown.querySelector("script, [onerror]"), null);
    for (const link of shown.querySelectorAll("a")) assert.doesNotMatch(link.getAttribute("href") ?? "", /^\s*javascript:/i);
    assert.equal((globalThis as any).window?.__pwned, undefined);
  });
});

describe("the placeholder", () => {
  it("is the chat's own while idle; busy and offline keep theirs", async () => {
    const model = new FakeModel({ placeholder: "Ask about your data…" });
    const { el } = await connected([], model);
    const box = () => textbox(el, "Message");
    assert.equal(box().placeholder, "Ask about your data…");
    model.set("status", "running");
    await until(() => box().placeholder.startsWith("Queue a message"), "the busy placeholder");
    model.set("status", "idle");
    model.set("placeholder", "");
    await until(() => box().placeholder.startsWith("Message (Enter to send"), "the default placeholder back");
  });
});

describe("avatars and the assistant's name", () => {
  it("draws an image avatar with its alt text and a text avatar, by role", async () => {
    const model = new FakeModel({ avatars: { user: "🙂", assistant: "https://example.org/bot.png" }, assistant_name: "Ada" });
    const { el } = await connected(conversation, model);
    await until(() => el.querySelector(".agui-author-assistant img") !== null, "the assistant's avatar");
    const image = el.querySelector(".agui-author-assistant img") as HTMLImageElement;
    assert.equal(image.getAttribute("src"), "https://example.org/bot.png");
    assert.equal(image.getAttribute("alt"), "Ada");
    assert.equal(el.querySelector(".agui-author-user .agui-avatar-text")?.textContent, "🙂");
    assert.deepEqual(authorNames(el), ["You", "Ada"]);
  });

  it("follows the traits live, and the defaults are the icon and 'Assistant'", async () => {
    const model = new FakeModel();
    const { el } = await connected(conversation, model);
    assert.deepEqual(authorNames(el), ["You", "Assistant"]);
    assert.equal(el.querySelector(".agui-author-user .agui-avatar"), null, "no user avatar by default");
    assert.ok(el.querySelector(".agui-author-assistant .agui-avatar .agui-icon"), "the agent icon by default");
    model.set("assistant_name", "Ada");
    model.set("avatars", { assistant: "AB" });
    await until(() => authorNames(el)[1] === "Ada", "the new name");
    await until(() => el.querySelector(".agui-author-assistant .agui-avatar-text")?.textContent === "AB", "the text avatar");
  });

  it("names the assistant by the active agent of several when it has no name of its own", async () => {
    const model = new FakeModel({ agent_names: ["planner", "coder"], agent_name: "planner" });
    const { el } = await connected(conversation, model);
    assert.equal(authorNames(el)[1], "planner");
  });

  it("never draws a script URL", async () => {
    for (const bad of ["javascript:alert(1)", " JaVaScRiPt:alert(1)", "data:text/html;base64,PHNjcmlwdD4=", "vbscript:x"]) {
      assert.equal(avatarOf(bad), null, bad);
    }
    const model = new FakeModel({ avatars: { assistant: "javascript:alert(1)", user: "data:text/html,<script>1</script>" } });
    const { el } = await connected(conversation, model);
    assert.equal(el.querySelector(".agui-author img"), null);
    assert.doesNotMatch(el.innerHTML, /javascript:|text\/html/);
    assert.ok(el.querySelector(".agui-author-assistant .agui-icon"), "the default icon instead");
  });

  it("takes image URLs and short texts only", () => {
    assert.deepEqual(avatarOf("https://x.org/a.png"), { image: "https://x.org/a.png" });
    assert.deepEqual(avatarOf("data:image/png;base64,iVBORw0KGgo="), { image: "data:image/png;base64,iVBORw0KGgo=" });
    assert.deepEqual(avatarOf("👩‍👩‍👧‍👦"), { text: "👩‍👩‍👧‍👦" });
    assert.equal(avatarOf("a".repeat(17)), null);
    assert.equal(avatarOf(""), null);
    assert.equal(avatarOf(3), null);
  });
});
