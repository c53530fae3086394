/**
 * Our end of an MCP App: a JSON-RPC 2.0 dispatcher for one app, speaking the MCP Apps protocol as
 * `@modelcontextprotocol/ext-apps`'s `App` does. It answers the app's requests (`ui/initialize`,
 * `tools/call`, `resources/read`, `ui/open-link`, `ui/message`), takes its notifications (its size,
 * its logs) and tells it the tool's input and result once it said it is initialized.
 *
 * The host knows nothing of iframes: `bindToFrame` feeds it the messages whose `source` is one
 * iframe's window (never by origin: a sandboxed frame's is "null", as any other's), and it posts
 * to that window.
 */
import {
  type CallToolResult,
  HOST_INFO,
  type HostContext,
  HostError,
  METHOD,
  PROTOCOL_VERSION,
  type Params,
  RPC_ERROR,
  type RpcId,
  type RpcMessage,
  type RpcRequest,
  asRpc,
  isRecord,
} from "./protocol";

/** What the host does for the app; a handler left out is a capability not offered. */
export type HostHandlers = {
  callTool(name: string, args: Params): Promise<CallToolResult>;
  readResource?(uri: string): Promise<unknown>;
  openLink?(url: string): void;
  /** A message the app asks to send to the chat as the user (`ui/message`). */
  sendMessage?(text: string): void;
  sizeChanged(size: { width?: number; height?: number }): void;
  log?(level: string, data: unknown): void;
};

/** How long the host waits for the app to answer its own requests (teardown). */
export const APP_ANSWER_MS = 3000;

type Waiting = { resolve(value: unknown): void; reject(error: Error): void; timer: ReturnType<typeof setTimeout> };

export class AppHost {
  private ready = false;
  private queued: { method: string; params: Params }[] = [];
  private lastInput: Params | null = null;
  private lastResult: CallToolResult | null = null;
  private waiting = new Map<RpcId, Waiting>();
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly post: (message: RpcMessage) => void,
    private readonly handlers: HostHandlers,
    private context: HostContext,
  ) {}

  /** The app said `ui/notifications/initialized`. */
  get initialized(): boolean {
    return this.ready;
  }

  /** A message from the app. Anything but JSON-RPC 2.0 is ignored. */
  receive(data: unknown): void {
    if (this.closed) return;
    const message = asRpc(data);
    if (message === null) return;
    if ("method" in message) {
      if ("id" in message && (typeof message.id === "string" || typeof message.id === "number")) void this.answer(message as RpcRequest);
      else this.notified(message.method, message.params ?? {});
    } else {
      const waiting = this.waiting.get(message.id);
      if (!waiting) return;
      this.waiting.delete(message.id);
      clearTimeout(waiting.timer);
      if ("error" in message) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
    }
  }

  /** The tool's arguments (sent once the app is initialized; the latest wins). */
  toolInput(args: Params): void {
    this.lastInput = args;
    this.notify(METHOD.toolInput, { arguments: args });
  }

  /** The tool's result, a `CallToolResult`. */
  toolResult(result: CallToolResult): void {
    this.lastResult = result;
    this.notify(METHOD.toolResult, result);
  }

  toolCancelled(reason: string): void {
    this.notify(METHOD.toolCancelled, { reason });
  }

  /** The host context changed (the theme): the app is told what changed. */
  contextChanged(change: Partial<HostContext>): void {
    this.context = { ...this.context, ...change };
    this.notify(METHOD.hostContextChanged, change);
  }

  /** Asks the app to tear down (answered, or given up after APP_ANSWER_MS), then stops listening. */
  async teardown(): Promise<void> {
    if (this.closed) return;
    try {
      if (this.ready) await this.request(METHOD.resourceTeardown, {});
    } catch {
      // an app that does not answer is removed all the same
    } finally {
      this.close();
    }
  }

  /** Stops answering the app; what it still waits for is rejected. */
  close(): void {
    this.closed = true;
    for (const waiting of this.waiting.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error("The app was closed."));
    }
    this.waiting.clear();
  }

  private request(method: string, params: Params): Promise<unknown> {
    const id = `host-${++this.nextId}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`The app did not answer ${method}.`));
      }, APP_ANSWER_MS);
      this.waiting.set(id, { resolve, reject, timer });
      this.post({ jsonrpc: "2.0", id, method, params });
    });
  }

  private notify(method: string, params: Params): void {
    if (this.closed) return;
    if (!this.ready) this.queued.push({ method, params });
    else this.post({ jsonrpc: "2.0", method, params });
  }

  private notified(method: string, params: Params): void {
    if (method === METHOD.initialized) {
      if (this.ready) return;
      this.ready = true;
      // What came before the app listened, in order; the input before the result.
      const queued = this.queued.filter((q) => q.method !== METHOD.toolInput && q.method !== METHOD.toolResult);
      this.queued = [];
      if (this.lastInput !== null) this.notify(METHOD.toolInput, { arguments: this.lastInput });
      if (this.lastResult !== null) this.notify(METHOD.toolResult, this.lastResult);
      for (const q of queued) this.notify(q.method, q.params);
    } else if (method === METHOD.sizeChanged) {
      const size = { width: finite(params.width), height: finite(params.height) };
      this.handlers.sizeChanged(size);
    } else if (method === METHOD.log) {
      this.handlers.log?.(typeof params.level === "string" ? params.level : "info", params.data);
    }
    // Other notifications (request-teardown, sandbox-proxy-ready ...) have nothing to do here.
  }

  private async answer(request: RpcRequest): Promise<void> {
    let reply: RpcMessage;
    try {
      reply = { jsonrpc: "2.0", id: request.id, result: await this.carryOut(request.method, request.params ?? {}) };
    } catch (error) {
      const code = error instanceof HostError ? error.code : RPC_ERROR.internal;
      const message = error instanceof Error ? error.message : String(error);
      reply = { jsonrpc: "2.0", id: request.id, error: { code, message } };
    }
    if (!this.closed) this.post(reply);
  }

  private async carryOut(method: string, params: Params): Promise<unknown> {
    const handlers = this.handlers;
    switch (method) {
      case METHOD.initialize:
        return { protocolVersion: PROTOCOL_VERSION, hostInfo: HOST_INFO, hostCapabilities: this.capabilities(), hostContext: this.context };
      case METHOD.ping:
        return {};
      case METHOD.callTool: {
        const name = params.name;
        if (typeof name !== "string" || name === "") throw new HostError(RPC_ERROR.invalidParams, "tools/call needs a tool's name");
        return handlers.callTool(name, isRecord(params.arguments) ? params.arguments : {});
      }
      case METHOD.readResource:
        if (!handlers.readResource) break;
        if (typeof params.uri !== "string") throw new HostError(RPC_ERROR.invalidParams, "resources/read needs a uri");
        return handlers.readResource(params.uri);
      case METHOD.openLink:
        if (!handlers.openLink) break;
        if (typeof params.url !== "string" || !/^https?:\/\//i.test(params.url)) return { isError: true };
        handlers.openLink(params.url);
        return {};
      case METHOD.message: {
        if (!handlers.sendMessage) break;
        const text = messageText(params.content);
        if (text === "") return { isError: true };
        handlers.sendMessage(text);
        return {};
      }
      case METHOD.requestDisplayMode:
        return { mode: "inline" };
    }
    throw new HostError(RPC_ERROR.methodNotFound, `${method} is not supported by this host`);
  }

  private capabilities(): Params {
    const h = this.handlers;
    return {
      serverTools: {},
      ...(h.readResource ? { serverResources: {} } : {}),
      ...(h.openLink ? { openLinks: {} } : {}),
      ...(h.sendMessage ? { message: { text: {} } } : {}),
      logging: {},
    };
  }
}

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The text parts of a `ui/message`'s content, joined. */
function messageText(content: unknown): string {
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((part) => (isRecord(part) && part.type === "text" && typeof part.text === "string" ? part.text : ""))
    .filter((text) => text !== "")
    .join("\n");
}

/**
 * Feeds `host` the messages `frame`'s window posts, and only those (`event.source` is that
 * window; an opaque origin's "null" names no one). Returns the function that stops it.
 */
export function bindToFrame(frame: HTMLIFrameElement, host: AppHost): () => void {
  const page = frame.ownerDocument.defaultView;
  if (!page) return () => {};
  const onMessage = (event: MessageEvent) => {
    const source = frame.contentWindow;
    if (source !== null && event.source === source) host.receive(event.data);
  };
  page.addEventListener("message", onMessage);
  return () => page.removeEventListener("message", onMessage);
}

/** Posts to `frame`'s window: `"*"`, as a sandboxed frame's origin is opaque and matches no name. */
export function postToFrame(frame: HTMLIFrameElement): (message: RpcMessage) => void {
  return (message) => frame.contentWindow?.postMessage(message, "*");
}
