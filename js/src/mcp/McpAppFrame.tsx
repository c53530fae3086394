/**
 * An MCP App in its tool's card: the tool's `ui://` resource, read through the kernel, runs in an
 * iframe sandboxed to an opaque origin (`allow-scripts` only) under a strict CSP. Our `AppHost`
 * gives it the call's arguments and result, carries its tool calls to the kernel (asking the
 * user first when the server's approve policy says so) and follows the height it asks for.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { ToolCall, ToolSpec } from "../kernel/wire";
import { type ToolMessage, textOf, widgetMark } from "../mirror/mirror";
import { useView } from "../view/context";
import { isDarkTheme } from "../view/vega";
import { argsValue } from "../logic/format";
import { AppHost, bindToFrame, postToFrame } from "./host";
import { policyFor, withPolicy } from "./csp";
import { askApp, askCall, askRead, type AppSource } from "./kernel";
import { type CallToolResult, type HostContext, type Params, type ResourceCsp, isRecord } from "./protocol";

/** The heights an app may ask for (px); its width is the card's. */
export const MIN_HEIGHT = 40;
export const MAX_HEIGHT = 800;
const FIRST_HEIGHT = 120;

type Props = { call: ToolCall; spec: ToolSpec; result: ToolMessage | undefined };
type Question = { name: string; args: Params; answer(approved: boolean): void };

export function clampHeight(height: number): number {
  return Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(height)));
}

/** The call's result as the app reads it: the server's own `CallToolResult` when the kernel kept
 * it (`metadata.agui_widget.mcp.result`), else the tool message's text. */
export function callToolResultOf(message: ToolMessage): CallToolResult {
  const kept = widgetMark(message, "mcp");
  if (isRecord(kept) && isRecord(kept.result) && Array.isArray(kept.result.content)) return kept.result as CallToolResult;
  const content = message.content as unknown;
  const text = typeof content === "string" ? content : textOf(content);
  return { content: [{ type: "text", text }], isError: typeof message.error === "string" && message.error !== "" };
}

/** The notebook's theme and a few of its colours and fonts, as the spec names them. */
export function themeOf(el: Element): Pick<HostContext, "theme" | "styles"> {
  const view = el.ownerDocument.defaultView;
  const css = view?.getComputedStyle(el);
  const pick = (name: string) => css?.getPropertyValue(name).trim() ?? "";
  const pairs: [string, string][] = [
    ["--color-background-primary", pick("--jp-layout-color0")],
    ["--color-background-secondary", pick("--jp-layout-color1")],
    ["--color-text-primary", pick("--jp-content-font-color1")],
    ["--color-text-secondary", pick("--jp-content-font-color2")],
    ["--color-border-primary", pick("--jp-border-color1")],
    ["--font-sans", pick("--jp-ui-font-family")],
    ["--font-mono", pick("--jp-code-font-family")],
  ];
  const variables = Object.fromEntries(pairs.filter(([, value]) => value !== ""));
  return { theme: isDarkTheme(el) ? "dark" : "light", styles: { variables } };
}

/** The app's source, asked of the kernel once per call; or why there is none. */
function useAppSource(call: ToolCall): { source: AppSource | null; failure: string | null } {
  const { conn } = useView();
  const [source, setSource] = useState<AppSource | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    askApp(conn, call.id).then(
      (app) => live && setSource(app),
      (error: unknown) => live && setFailure(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      live = false;
    };
  }, [conn, call.id]);
  return { source, failure };
}

/** Where the app is drawn, as the host tells it. */
function contextFor(el: HTMLIFrameElement, call: ToolCall, spec: ToolSpec): HostContext {
  return {
    ...themeOf(el),
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    containerDimensions: { maxHeight: MAX_HEIGHT, width: el.clientWidth || undefined },
    toolInfo: { id: call.id, tool: { name: spec.name, description: spec.description, inputSchema: spec.parameters } },
    locale: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: "web",
  };
}

type HostProps = Props & {
  frame: { current: HTMLIFrameElement | null };
  srcdoc: string | null;
  setHeight(height: number): void;
  setQuestion(question: Question | null): void;
};

/** The host of the app in `frame`: made when its document is set, closed when it goes. */
function useAppHost({ call, spec, result, frame, srcdoc, setHeight, setQuestion }: HostProps): void {
  const { conn } = useView();
  const host = useRef<AppHost | null>(null);
  useLayoutEffect(() => {
    const el = frame.current;
    if (!el || srcdoc === null) return;
    const ask = (name: string, args: Params) =>
      new Promise<boolean>((resolve) => setQuestion({ name, args, answer: (approved) => (setQuestion(null), resolve(approved)) }));
    const callTool = async (name: string, args: Params) => {
      let answer = await askCall(conn, call.id, name, args, false);
      if ("needsApproval" in answer) {
        if (!(await ask(name, args))) throw new Error(`The user denied ${name}.`);
        answer = await askCall(conn, call.id, name, args, true);
      }
      if ("needsApproval" in answer) throw new Error(answer.needsApproval);
      return answer.result as CallToolResult;
    };
    const app = new AppHost(
      postToFrame(el),
      {
        callTool,
        readResource: (uri) => askRead(conn, call.id, uri),
        openLink: (url) => void el.ownerDocument.defaultView?.open(url, "_blank", "noopener,noreferrer"),
        sizeChanged: ({ height }) => height !== undefined && setHeight(clampHeight(height)),
        log: (level, data) => console.debug(`agui-widget: MCP App ${spec.name} (${level}):`, data),
      },
      contextFor(el, call, spec),
    );
    host.current = app;
    const args = argsValue(call.function?.arguments ?? "");
    app.toolInput(isRecord(args) ? args : {});
    const unbind = bindToFrame(el, app);
    const body = el.ownerDocument.body;
    const themes = new MutationObserver(() => app.contextChanged(themeOf(el)));
    if (body) themes.observe(body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"] });
    return () => {
      themes.disconnect();
      unbind();
      app.close();
      host.current = null;
    };
  }, [srcdoc, conn, call.id]);

  useEffect(() => {
    const app = host.current;
    if (!app || !result) return;
    if (result.error === "cancelled") app.toolCancelled("The call was cancelled.");
    else app.toolResult(callToolResultOf(result));
  }, [srcdoc, result]);
}

export function McpAppFrame(props: Props) {
  const { spec } = props;
  const { source, failure } = useAppSource(props.call);
  const [height, setHeight] = useState(FIRST_HEIGHT);
  const [question, setQuestion] = useState<Question | null>(null);
  const frame = useRef<HTMLIFrameElement>(null);
  const srcdoc = useMemo(() => (source ? withPolicy(source.html, policyFor(source.csp as ResourceCsp | null)) : null), [source]);
  useAppHost({ ...props, frame, srcdoc, setHeight, setQuestion });

  if (failure !== null) {
    return (
      <div class="agui-mcp-app-note" role="note">
        The app of {spec.name} could not be shown: {failure}
      </div>
    );
  }
  return (
    <div class="agui-mcp-app" data-app={spec.appUri ?? ""}>
      {question && <Approval question={question} />}
      {srcdoc !== null && (
        <iframe
          ref={frame}
          sandbox="allow-scripts"
          srcdoc={srcdoc}
          class="agui-mcp-app-frame"
          title={`${spec.name}: an app from its MCP server`}
          referrerpolicy="no-referrer"
          style={{ display: "block", width: "100%", height: `${height}px`, border: "0", colorScheme: "normal" }}
        />
      )}
    </div>
  );
}

/** The app asks to call a tool the server's approve policy asks the user about. */
function Approval({ question }: { question: Question }) {
  const args = JSON.stringify(question.args);
  return (
    <div class="agui-mcp-approval agui-pending-entry" role="group" aria-label={`The app asks to run ${question.name}`}>
      <div>
        The app asks to run <span class="agui-tool-name">{question.name}</span>
        {args !== "{}" && <code class="agui-mcp-args">{args}</code>}
      </div>
      <div class="agui-actions">
        <button type="button" class="agui-btn agui-btn-primary" onClick={() => question.answer(true)}>
          Approve
        </button>
        <button type="button" class="agui-btn" onClick={() => question.answer(false)}>
          Deny
        </button>
      </div>
    </div>
  );
}
