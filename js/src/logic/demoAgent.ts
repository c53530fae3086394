/** Whether the chat runs the built-in demo agent (agui_widget/adapters/_demo.py).
 *
 * The view is told no agent's type; the demo is recognised by the frontend tool it brings,
 * `set_accent_color`, answered in the browser by `ctx.setAccent`. A chat that picks between
 * several agents may hold that tool while another agent answers, so it never counts. */
import type { Traits } from "../kernel/wire";

const DEMO_TOOL = "set_accent_color";
const DEMO_HANDLER = "ctx.setAccent(";

export function isDemoAgent(tools: Traits["frontend_tools"], agentNames: Traits["agent_names"]): boolean {
  if (agentNames.length > 0) return false;
  return tools.some((tool) => tool.name === DEMO_TOOL && tool.ui === "handler" && (tool.handler ?? "").includes(DEMO_HANDLER));
}
