/**
 * Our MCP Apps host (js/src/mcp/): the JSON-RPC it speaks with an app, held to the reference, the
 * official `App` class of `@modelcontextprotocol/ext-apps`, over a pair of in-memory ends; the
 * frame binding, which hears only its own iframe's window; and the CSP an app runs under.
 * tests/browser/test_mcp_app.py runs the demo server's app in a sandboxed iframe in Chromium.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App } from "@modelcontextprotocol/ext-apps";
import { AppHost, bindToFrame, type HostHandlers } from "../src/mcp/host";
import { DEFAULT_CSP, policyFor, safeOrigins, withPolicy } from "../src/mcp/csp";
import { type CallToolResult, type HostContext, METHOD, PROTOCOL_VERSION, type RpcMessage } from "../src/mcp/protocol";
import { clampHeight } from "../src/mcp/McpAppFrame";

const CONTEXT: HostContext = { theme: "dark", displayMode: "inline", availableDisplayModes: ["inline"], platform: "web" };
const counted = (count: number): CallToolResult => ({ content: [{ type: "text", text: `at ${count}` }], structuredContent: { count } });

async function until(predicate: () => boolean, what: string, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    assert.ok(Date.now() < deadline, `${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** A host whose posts are kept, and handlers that record what they were asked. */
function recordingHost(handlers: Partial<HostHandlers> = {}, post?: (message: RpcMessage) => void) {
  const posted: RpcMessage[] = [];
  const calls: [string, unknown][] = [];
  const sizes: { width?: number; height?: number }[] = [];
  const host = new AppHost((m) => (posted.push(m), post?.(m)), {
    callTool: async (name, args) => {
      calls.push([name, args]);
      return counted(3);
    },
    sizeChanged: (size) => sizes.push(size),
    ...handlers,
  }, CONTEXT);
  return { host, posted, calls, sizes };
}

const reply = (posted: RpcMessage[], id: string | number) => posted.find((m) => "id" in m && m.id === id && !("method" in m));
const methods = (posted: RpcMessage[]) => posted.filter((m) => "method" in m).map((m) => (m as { method: string }).method);

describe("the host's JSON-RPC", () => {
  it("answers ui/initialize with its protocol version, capabilities and context", async () => {
    const { host, posted } = recordingHost();
    host.receive({ jsonrpc: "2.0", id: 1, method: METHOD.initialize, params: { protocolVersion: PROTOCOL_VERSION, appInfo: { name: "a", version: "1" }, appCapabilities: {} } });
    await until(() => reply(posted, 1) !== undefined, "the answer");
    const answer = reply(posted, 1) as { result: Record<string, unknown> };
    assert.equal(answer.result.protocolVersion, PROTOCOL_VERSION);
    assert.deepEqual(answer.result.hostContext, CONTEXT);
    assert.deepEqual((answer.result.hostCapabilities as Record<string, unknown>).serverTools, {});
  });

  it("keeps the tool's input and result until the app is initialized, then sends the input first", () => {
    const { host, posted } = recordingHost();
    host.toolResult(counted(2));
    host.toolInput({ start: 2 });
    assert.deepEqual(posted, [], "nothing reaches an app that is not listening yet");
    host.receive({ jsonrpc: "2.0", method: METHOD.initialized });
    assert.deepEqual(methods(posted), [METHOD.toolInput, METHOD.toolResult]);
    host.toolResult(counted(4));
    assert.deepEqual((posted.at(-1) as unknown as { params: unknown }).params, counted(4), "after that, at once");
  });

  it("carries tools/call to its handler, and a failure back as a JSON-RPC error", async () => {
    const { host, posted, calls } = recordingHost();
    host.receive({ jsonrpc: "2.0", id: "c1", method: METHOD.callTool, params: { name: "increment", arguments: { by: 1 } } });
    await until(() => reply(posted, "c1") !== undefined, "the call's answer");
    assert.deepEqual(calls, [["increment", { by: 1 }]]);
    assert.deepEqual((reply(posted, "c1") as { result: unknown }).result, counted(3));

    const failing = recordingHost({ callTool: async () => Promise.reject(new Error("The user denied increment.")) });
    failing.host.receive({ jsonrpc: "2.0", id: 2, method: METHOD.callTool, params: { name: "increment" } });
    await until(() => reply(failing.posted, 2) !== undefined, "the error");
    assert.deepEqual((reply(failing.posted, 2) as { error: unknown }).error, { code: -32603, message: "The user denied increment." });
  });

  it("says a method it does not support is not found, and ignores what is not JSON-RPC", async () => {
    const { host, posted } = recordingHost();
    host.receive({ jsonrpc: "2.0", id: 9, method: "ui/update-model-context", params: {} });
    host.receive({ hello: "world" });
    host.receive("not even an object");
    await until(() => reply(posted, 9) !== undefined, "the answer");
    assert.equal((reply(posted, 9) as { error: { code: number } }).error.code, -32601);
    assert.equal(posted.length, 1);
  });

  it("passes the app's size on, and opens only http(s) links", async () => {
    const opened: string[] = [];
    const { host, posted, sizes } = recordingHost({ openLink: (url) => opened.push(url) });
    host.receive({ jsonrpc: "2.0", method: METHOD.sizeChanged, params: { width: 300, height: 96 } });
    host.receive({ jsonrpc: "2.0", id: 1, method: METHOD.openLink, params: { url: "javascript:alert(1)" } });
    host.receive({ jsonrpc: "2.0", id: 2, method: METHOD.openLink, params: { url: "https://example.com/" } });
    await until(() => reply(posted, 2) !== undefined, "the answers");
    assert.deepEqual(sizes, [{ width: 300, height: 96 }]);
    assert.deepEqual(opened, ["https://example.com/"]);
    assert.deepEqual((reply(posted, 1) as { result: unknown }).result, { isError: true });
  });

  it("keeps the app's height within bounds", () => {
    assert.deepEqual([clampHeight(3), clampHeight(96.2), clampHeight(5000)], [40, 97, 800]);
  });
});

describe("the host and the SDK's App", () => {
  /** The SDK's App on one end of an in-memory link, our host on the other. */
  function linked(handlers: Partial<HostHandlers> = {}) {
    let toApp: ((message: unknown) => void) | undefined;
    const { host, calls, sizes } = recordingHost(handlers, (message) => toApp?.(structuredClone(message)));
    const transport = {
      onmessage: undefined as ((message: unknown) => void) | undefined,
      onclose: undefined as (() => void) | undefined,
      onerror: undefined as ((error: Error) => void) | undefined,
      async start() {
        toApp = (message) => transport.onmessage?.(message);
      },
      async send(message: unknown) {
        queueMicrotask(() => host.receive(structuredClone(message)));
      },
      async close() {
        transport.onclose?.();
      },
    };
    return { host, transport, calls, sizes };
  }

  it("initializes, gets the input and result, calls a tool and reports its size, as the reference app does", async () => {
    const { host, transport, calls, sizes } = linked();
    const app = new App({ name: "test app", version: "1" }, {}, { autoResize: false });
    const inputs: unknown[] = [];
    const results: unknown[] = [];
    app.ontoolinput = (params) => void inputs.push(params.arguments);
    app.ontoolresult = (result) => void results.push(result.structuredContent);
    host.toolInput({ start: 2 });
    host.toolResult(counted(2));

    await app.connect(transport as never);

    assert.equal(app.getHostContext()?.theme, "dark", "the host's context reached the app");
    await until(() => results.length === 1, "the tool's result");
    assert.deepEqual(inputs, [{ start: 2 }]);
    assert.deepEqual(results, [{ count: 2 }]);
    const called = await app.callServerTool({ name: "increment", arguments: { by: 1 } });
    assert.deepEqual(called.structuredContent, { count: 3 });
    assert.deepEqual(calls, [["increment", { by: 1 }]]);
    await app.sendSizeChanged({ width: 320, height: 120 });
    await until(() => sizes.length === 1, "the size");
    assert.deepEqual(sizes, [{ width: 320, height: 120 }]);
    await app.close();
  });

  it("lets the App see a refused call as an error", async () => {
    const { transport } = linked({ callTool: async () => Promise.reject(new Error("The user denied increment.")) });
    const app = new App({ name: "test app", version: "1" }, {}, { autoResize: false });
    await app.connect(transport as never);
    await assert.rejects(app.callServerTool({ name: "increment", arguments: {} }), /The user denied increment/);
    await app.close();
  });
});

describe("the frame binding", () => {
  it("hears only the messages its own iframe's window posts", () => {
    const page = new EventTarget();
    const own = {};
    const frame = { ownerDocument: { defaultView: page }, contentWindow: own } as unknown as HTMLIFrameElement;
    const heard: unknown[] = [];
    const host = { receive: (data: unknown) => heard.push(data) } as unknown as AppHost;
    const unbind = bindToFrame(frame, host);
    const post = (data: unknown, source: unknown) => page.dispatchEvent(Object.assign(new Event("message"), { data, source }));
    post({ jsonrpc: "2.0", method: "a" }, own);
    post({ jsonrpc: "2.0", method: "b" }, {}); // another frame, also of origin "null"
    post({ jsonrpc: "2.0", method: "c" }, null);
    unbind();
    post({ jsonrpc: "2.0", method: "d" }, own);
    assert.deepEqual(heard, [{ jsonrpc: "2.0", method: "a" }]);
  });
});

describe("the app's CSP", () => {
  it("is the spec's default unless the resource names origins", () => {
    const policy = policyFor(null);
    for (const part of DEFAULT_CSP.split("; ")) assert.ok(policy.includes(part), `${part} in ${policy}`);
    assert.match(policy, /frame-src 'none'/);
  });

  it("takes only https and wss origins a resource names", () => {
    assert.deepEqual(safeOrigins(["https://cdn.example.com", "https://*.example.org:8443", "wss://live.example.com", "*", "'unsafe-eval'", "http://plain.example.com", "https://a.com; script-src *", "https://a.com/path", 3]), [
      "https://cdn.example.com",
      "https://*.example.org:8443",
      "wss://live.example.com",
    ]);
    const policy = policyFor({ connectDomains: ["https://api.example.com", "*"], resourceDomains: ["https://cdn.example.com"] });
    assert.match(policy, /connect-src https:\/\/api\.example\.com;/);
    assert.match(policy, /script-src 'self' 'unsafe-inline' https:\/\/cdn\.example\.com;/);
    assert.doesNotMatch(policy, /unsafe-eval|\*;/);
  });

  it("comes before anything in the document but its doctype", () => {
    const meta = (policy: string) => `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
    assert.equal(withPolicy("<!doctype html><html><head><script>1</script>", "default-src 'none'"), `<!doctype html>${meta("default-src 'none'")}<html><head><script>1</script>`);
    assert.equal(withPolicy("<script>early()</script><head></head>", "x"), `${meta("x")}<script>early()</script><head></head>`);
    // A comment that the browser closes at once (`<!-->`) must not hide a script from the policy.
    assert.ok(withPolicy("<!--><script>x()</script>-->", "x").startsWith(meta("x")));
    assert.equal(withPolicy("", `a"b<c`), meta("a&quot;b&lt;c"));
  });
});
