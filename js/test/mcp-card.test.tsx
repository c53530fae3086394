/**
 * An MCP App in its tool's card (js/src/mcp/McpAppFrame.tsx): the card asks the kernel for the
 * app of a tool whose spec names one, runs it in an iframe sandboxed to scripts alone with the
 * CSP first in its document, gives it the call's input and result, carries its tool calls to the
 * kernel (asking Approve / Deny when the kernel says the call needs it) and follows its height.
 * Here the app is played by hand, as JSON-RPC messages from the iframe's window; the SDK's `App`
 * talks to the host in mcp-host.test.ts, and a real app runs in tests/browser/test_mcp_app.py.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeModel, until, untilSent } from "./dom";
import { button, connected } from "./mount";

const APP = "ui://demo/counter.html";
const counterTool = (appUri: string | null) => ({ name: "counter", description: "A counter.", parameters: {}, ui: "kernel", handler: null, approve: false, appUri });
const counted = (count: number) => ({ content: [{ type: "text", text: `The counter is at ${count}.` }], structuredContent: { count } });
const transcript = [
  { id: "u1", role: "user", content: "count" },
  { id: "a1", role: "assistant", content: "", toolCalls: [{ id: "c1", type: "function", function: { name: "counter", arguments: '{"start": 2}' } }] },
  { id: "t1", role: "tool", toolCallId: "c1", content: "The counter is at 2.", metadata: { agui_widget: { mcp: { result: counted(2), tool: "counter" } } } },
];

type Rpc = Record<string, unknown>;

/** The card's app frame, with what the host posted into it and a way to post as the app. */
async function appFrame(model: FakeModel, el: HTMLElement) {
  const [asked] = await untilSent(model, "mcp_app");
  assert.equal(asked?.toolCallId, "c1");
  model.kernel({ kind: "mcp_app", requestId: asked?.requestId, toolCallId: "c1", html: "<!doctype html><p>app</p>", csp: null, error: null });
  await until(() => el.querySelector("iframe.agui-mcp-app-frame") !== null, "the app's frame");
  const frame = el.querySelector("iframe.agui-mcp-app-frame") as HTMLIFrameElement;
  const inside = frame.contentWindow as Window;
  const received: Rpc[] = [];
  inside.addEventListener("message", (event) => received.push((event as MessageEvent).data as Rpc));
  const page = frame.ownerDocument.defaultView as Window & { Event: typeof Event };
  const postAs = (source: unknown, data: Rpc) => page.dispatchEvent(Object.assign(new page.Event("message"), { data, source }));
  return { frame, received, asApp: (data: Rpc) => postAs(inside, { jsonrpc: "2.0", ...data }), asStranger: (data: Rpc) => postAs({}, { jsonrpc: "2.0", ...data }) };
}

describe("an MCP App in the card", () => {
  it("runs sandboxed under the CSP, gets the call's input and result, and calls a tool after Approve", async () => {
    const model = new FakeModel({ frontend_tools: [counterTool(APP)] });
    const { el } = await connected(transcript, model);
    const { frame, received, asApp, asStranger } = await appFrame(model, el);

    assert.equal(frame.getAttribute("sandbox"), "allow-scripts");
    const srcdoc = frame.getAttribute("srcdoc") ?? "";
    assert.match(srcdoc, /^<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'none'; [^"]*connect-src 'none'/);

    asStranger({ id: 0, method: "ui/initialize", params: {} });
    asApp({ id: 1, method: "ui/initialize", params: { protocolVersion: "2026-01-26", appInfo: { name: "t", version: "1" }, appCapabilities: {} } });
    await until(() => received.some((m) => m.id === 1), "the answer to ui/initialize");
    assert.ok(!received.some((m) => m.id === 0), "a message from another window is not answered");
    const init = received.find((m) => m.id === 1)?.result as Rpc;
    assert.equal((init.hostContext as Rpc).theme, "light");
    asApp({ method: "ui/notifications/initialized" });
    await until(() => received.some((m) => m.method === "ui/notifications/tool-result"), "the tool's result");
    assert.deepEqual(received.find((m) => m.method === "ui/notifications/tool-input")?.params, { arguments: { start: 2 } });
    assert.deepEqual(received.find((m) => m.method === "ui/notifications/tool-result")?.params, counted(2));

    asApp({ id: 2, method: "tools/call", params: { name: "increment", arguments: { by: 1 } } });
    const [first] = await untilSent(model, "mcp_call");
    assert.deepEqual({ ...first, requestId: undefined }, { kind: "mcp_call", requestId: undefined, toolCallId: "c1", name: "increment", arguments: { by: 1 }, approved: false });
    model.kernel({ kind: "mcp_result", requestId: first?.requestId, result: null, error: "increment asks first", needsApproval: true });
    await until(() => el.querySelector(".agui-mcp-approval") !== null, "the card asks the user");
    assert.match(el.querySelector(".agui-mcp-approval")?.textContent ?? "", /The app asks to run increment\{"by":1\}/);
    button(el.querySelector(".agui-mcp-approval") as HTMLElement, "Approve").click();
    const second = (await untilSent(model, "mcp_call", 2))[1];
    assert.equal(second?.approved, true);
    model.kernel({ kind: "mcp_result", requestId: second?.requestId, result: counted(3), error: null, needsApproval: false });
    await until(() => received.some((m) => m.id === 2), "the call's answer");
    assert.deepEqual(received.find((m) => m.id === 2)?.result, counted(3));
    assert.equal(el.querySelector(".agui-mcp-approval"), null, "the question is gone once answered");
  });

  it("tells the app the user denied a call, and the kernel never hears it again", async () => {
    const model = new FakeModel({ frontend_tools: [counterTool(APP)] });
    const { el } = await connected(transcript, model);
    const { received, asApp } = await appFrame(model, el);
    asApp({ id: 5, method: "tools/call", params: { name: "increment" } });
    const [first] = await untilSent(model, "mcp_call");
    model.kernel({ kind: "mcp_result", requestId: first?.requestId, result: null, error: "asks first", needsApproval: true });
    await until(() => el.querySelector(".agui-mcp-approval") !== null, "the card asks the user");
    button(el.querySelector(".agui-mcp-approval") as HTMLElement, "Deny").click();
    await until(() => received.some((m) => m.id === 5), "the call's answer");
    assert.deepEqual(received.find((m) => m.id === 5)?.error, { code: -32603, message: "The user denied increment." });
    assert.equal(model.sentOf("mcp_call").length, 1);
  });

  it("takes the height the app asks for, within 40..800 px", async () => {
    const model = new FakeModel({ frontend_tools: [counterTool(APP)] });
    const { el } = await connected(transcript, model);
    const { frame, asApp } = await appFrame(model, el);
    asApp({ method: "ui/notifications/size-changed", params: { width: 300, height: 96 } });
    await until(() => frame.style.height === "96px", "the app's height");
    asApp({ method: "ui/notifications/size-changed", params: { height: 100_000 } });
    await until(() => frame.style.height === "800px", "the largest height");
  });

  it("says why when the kernel has no app to give, and asks nothing for a tool without one", async () => {
    const model = new FakeModel({ frontend_tools: [counterTool(APP)] });
    const { el } = await connected(transcript, model);
    const [asked] = await untilSent(model, "mcp_app");
    model.kernel({ kind: "mcp_app", requestId: asked?.requestId, toolCallId: "c1", html: null, csp: null, error: "the MCP server failed reading it" });
    await until(() => el.querySelector(".agui-mcp-app-note") !== null, "the note");
    assert.match(el.querySelector(".agui-mcp-app-note")?.textContent ?? "", /could not be shown: the MCP server failed reading it/);

    const plain = new FakeModel({ frontend_tools: [counterTool(null)] });
    const other = await connected(transcript, plain);
    await until(() => other.el.querySelector(".agui-tool") !== null, "the card");
    assert.equal(other.el.querySelector("iframe"), null);
    assert.equal(plain.sentOf("mcp_app").length, 0);
  });
});
