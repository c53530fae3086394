/**
 * The code a `run_python` call runs, shown in its card as a highlighted Python block (with its
 * copy button) rather than as the call's JSON: before the user approves it, while it streams, and
 * after it ran. It goes through the Markdown renderer as a fence, so it is highlighted and
 * sanitised as an answer's code is.
 */
import { isRecord } from "../mirror/messages";
import { Markdown } from "./Markdown";

/** The tool whose `code` argument is shown as code: the agent's (and "Run in kernel"'s) runner. */
export const RUN_PYTHON = "run_python";

/** The `code` argument of a `run_python` call (parsed, or as far as it streamed), else null. */
export function codeArgument(name: string, args: unknown): string | null {
  if (name !== RUN_PYTHON || !isRecord(args)) return null;
  return typeof args.code === "string" ? args.code : null;
}

/** A fence that no run of backticks in `code` can close early. */
export function pythonFence(code: string): string {
  let longest = 0;
  for (const run of code.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}python\n${code}${code.endsWith("\n") ? "" : "\n"}${fence}\n`;
}

/** The code, highlighted; as it streams it is shown as far as it came, each time a whole block. */
export function CodeArgument({ code }: { code: string }) {
  return (
    <div class="agui-tool-code">
      <Markdown text={pythonFence(code)} />
    </div>
  );
}
