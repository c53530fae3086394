/** What the agent gets beside the conversation: the tools the notebook offers it (`chat.tools`)
 * and what it is told (`chat.context`, a live entry as read when the last run started). */
import type { ContextSummary, ToolSpec } from "../kernel/wire";
import { useTrait } from "./hooks";

const HOW_ANSWERED: Record<ToolSpec["ui"], string> = {
  handler: "runs in the browser",
  confirm: "asks you to approve",
  ask: "asks you",
  form: "asks you to fill in a form",
  manual: "answered by hand",
  kernel: "runs in the kernel",
};

function sizeOf(entry: ContextSummary): string {
  if (entry.live && entry.length === 0) return "read when the next run starts";
  const size = `${entry.length.toLocaleString("en")} characters`;
  return entry.live ? `${size}, read at each run` : size;
}

export function ContextPanel() {
  const tools = useTrait("frontend_tools");
  const context = useTrait("agent_context");
  return (
    <section class="agui-panel agui-context" aria-label="What the agent gets">
      <div class="agui-panel-head">
        <span class="agui-panel-title">What the agent gets</span>
        <span class="agui-panel-note">beside the conversation and the state</span>
      </div>
      <div class="agui-panel-body">
        <h4 class="agui-context-heading">Tools ({tools.length})</h4>
        {tools.length === 0 ? (
          <div class="agui-empty">No tools from the notebook.</div>
        ) : (
          <ul class="agui-context-list" aria-label="Tools">
            {tools.map((tool) => (
              <li key={tool.name} class="agui-context-item">
                <code class="agui-context-name">{tool.name}</code>
                <span class="agui-context-note">{tool.ui === "kernel" && tool.approve ? "runs in the kernel once you approve" : HOW_ANSWERED[tool.ui]}</span>
                {tool.description && <div class="agui-context-text">{tool.description}</div>}
              </li>
            ))}
          </ul>
        )}
        <h4 class="agui-context-heading">Context ({context.length})</h4>
        {context.length === 0 ? (
          <div class="agui-empty">No context: set chat.context to tell the agent about the notebook.</div>
        ) : (
          <ul class="agui-context-list" aria-label="Context">
            {context.map((entry, index) => (
              <li key={index} class="agui-context-item">
                <span class="agui-context-name">{entry.description}</span>
                <span class="agui-context-note">{sizeOf(entry)}</span>
                {entry.preview !== "" && (
                  <details class="agui-context-details">
                    <summary>Show the text</summary>
                    <pre class="agui-context-preview">
                      {entry.preview}
                      {entry.length > entry.preview.length ? "…" : ""}
                    </pre>
                  </details>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
