/**
 * The MCP Apps protocol as a host speaks it (the MCP Apps extension, as
 * `@modelcontextprotocol/ext-apps` implements it): JSON-RPC 2.0 over `postMessage` between the
 * chat and the app's iframe. Only what our host sends and reads is typed here; the SDK's own
 * AppBridge (with zod) is larger than the whole view.
 */

/** The protocol version we speak (ext-apps 2.0's `LATEST_PROTOCOL_VERSION`). */
export const PROTOCOL_VERSION = "2026-01-26";

export const HOST_INFO = { name: "agui-widget", version: "1" } as const;

/** The methods, app -> host and host -> app. */
export const METHOD = {
  initialize: "ui/initialize",
  initialized: "ui/notifications/initialized",
  toolInput: "ui/notifications/tool-input",
  toolInputPartial: "ui/notifications/tool-input-partial",
  toolResult: "ui/notifications/tool-result",
  toolCancelled: "ui/notifications/tool-cancelled",
  hostContextChanged: "ui/notifications/host-context-changed",
  sizeChanged: "ui/notifications/size-changed",
  requestTeardown: "ui/notifications/request-teardown",
  resourceTeardown: "ui/resource-teardown",
  openLink: "ui/open-link",
  message: "ui/message",
  requestDisplayMode: "ui/request-display-mode",
  callTool: "tools/call",
  readResource: "resources/read",
  log: "notifications/message",
  ping: "ping",
} as const;

/** JSON-RPC's error codes. */
export const RPC_ERROR = { invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603 } as const;

export type RpcId = string | number;
export type Params = Record<string, unknown>;
export type RpcRequest = { jsonrpc: "2.0"; id: RpcId; method: string; params?: Params };
export type RpcNotification = { jsonrpc: "2.0"; method: string; params?: Params };
export type RpcError = { code: number; message: string; data?: unknown };
export type RpcResponse = { jsonrpc: "2.0"; id: RpcId; result: unknown } | { jsonrpc: "2.0"; id: RpcId; error: RpcError };
export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

/** An MCP `CallToolResult`, as MCP writes it. */
export type CallToolResult = { content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean; _meta?: Params };

/** The tool whose card holds the app (`hostContext.toolInfo`). */
export type ToolInfo = { id?: RpcId; tool: { name: string; description?: string; inputSchema: Params } };

/** What the host tells the app of where it is drawn (`McpUiHostContext`). */
export type HostContext = {
  theme: "light" | "dark";
  styles?: { variables: Record<string, string> };
  displayMode: "inline";
  availableDisplayModes: ["inline"];
  containerDimensions?: { maxHeight: number; width?: number };
  toolInfo?: ToolInfo;
  locale?: string;
  timeZone?: string;
  userAgent?: string;
  platform: "web";
};

/** The domains a resource's `_meta.ui.csp` asks for. */
export type ResourceCsp = { connectDomains?: string[]; resourceDomains?: string[]; frameDomains?: string[]; baseUriDomains?: string[] };

/** An error the host answers an app's request with. */
export class HostError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export function isRecord(value: unknown): value is Params {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` as a JSON-RPC 2.0 message, or null when it is not one. */
export function asRpc(value: unknown): RpcMessage | null {
  if (!isRecord(value) || value.jsonrpc !== "2.0") return null;
  const id = value.id;
  const hasId = typeof id === "string" || typeof id === "number";
  if (value.params !== undefined && !isRecord(value.params)) return null;
  if (typeof value.method === "string") return value as RpcMessage;
  if (hasId && ("result" in value || isRecord(value.error))) return value as RpcMessage;
  return null;
}
