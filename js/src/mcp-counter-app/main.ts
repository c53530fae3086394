/**
 * The demo MCP server's counter app (`ui://agui-widget-demo/counter.html`), written as any MCP App
 * is, with the official `App` class of `@modelcontextprotocol/ext-apps`: it shows the count of
 * the `counter` tool's result, and its "+1" button calls the server's app-only `increment` tool
 * through the host. Built into one self-contained HTML file (js/scripts/build.mjs).
 */
import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from "@modelcontextprotocol/ext-apps";

type Result = { structuredContent?: Record<string, unknown>; isError?: boolean; content?: unknown[] };

const count = document.getElementById("count") as HTMLOutputElement;
const plus = document.getElementById("plus") as HTMLButtonElement;
const status = document.getElementById("status") as HTMLSpanElement;

const app = new App({ name: "agui-widget counter", version: "1.0.0" }, {}, { autoResize: true });

function show(result: Result): void {
  const value = result.structuredContent?.count;
  if (result.isError) status.textContent = textOf(result) || "The tool failed.";
  else if (typeof value === "number") {
    count.textContent = String(value);
    status.textContent = "";
    plus.disabled = false;
  }
}

function textOf(result: Result): string {
  const first = result.content?.[0] as { type?: string; text?: string } | undefined;
  return first?.type === "text" ? (first.text ?? "") : "";
}

function themed(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

app.ontoolinput = ({ arguments: args }) => {
  if (typeof args?.start === "number" && count.textContent === "…") status.textContent = `starting at ${args.start}`;
};
app.ontoolresult = (result) => show(result as Result);
app.onhostcontextchanged = (context) => themed({ ...app.getHostContext(), ...context });

plus.addEventListener("click", async () => {
  plus.disabled = true;
  status.textContent = "counting…";
  try {
    show((await app.callServerTool({ name: "increment", arguments: { by: 1 } })) as Result);
  } catch (error) {
    status.textContent = error instanceof Error ? error.message : String(error);
  } finally {
    plus.disabled = count.textContent === "…";
  }
});

app.connect().then(
  () => themed(app.getHostContext()),
  (error: unknown) => (status.textContent = `Could not reach the host: ${error instanceof Error ? error.message : String(error)}`),
);
