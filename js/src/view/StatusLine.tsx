/** What the chat is doing. The status line is for screen readers (a polite live region with
 * no height of its own: a line that came and went under the transcript made the whole chat jump
 * at every run); eyes get the same as a row at the end of the transcript ("Thinking" with moving
 * dots until the first token), and the run's steps, which stay in the transcript when it ends. */
import { useRef } from "preact/hooks";
import type { RunInfo } from "../mirror/mirror";
import type { Pending, Status, ToolSpec } from "../kernel/wire";
import { AnswerAnnouncer } from "./Announcer";
import { useView } from "./context";
import { useTopics, useTrait } from "./hooks";
import { useLive } from "./KernelBanner";

/** The statuses the line reports: the kernel's, or `disconnected` once the kernel is gone. */
export type ShownStatus = Status | "disconnected";

/**
 * Is the agent thinking, i.e. working on a run that has produced nothing yet?
 *
 * The kernel reports "running" before this view sees RUN_STARTED, and "idle" just after it sees
 * RUN_FINISHED (events travel ahead of trait changes). So a run this view saw start shows
 * thinking until its first output; a run it saw end is over, even while the kernel's status
 * still says running (that run's id is still the `run_id` trait); any other run is about to start.
 */
export function isThinking(status: Status, runId: string, run: RunInfo): boolean {
  if (status !== "running") return false;
  if (run.active) return !run.sawOutput;
  return !(run.runId !== "" && run.runId === runId);
}

/** False only when everything pending is a frontend tool whose handler a view runs by itself,
 * or a Python tool the kernel runs: anything else needs the user. */
export function asksTheUser(pending: readonly Pending[], tools: readonly ToolSpec[]): boolean {
  if (pending.length === 0) return true;
  return pending.some((entry) => {
    if (entry.kind !== "tool") return true;
    if (entry.kernel === "running") return false;
    const spec = tools.find((t) => t.name === entry.name);
    return !(spec?.ui === "handler" && spec.handler);
  });
}

function useThinking(): boolean {
  const { conn } = useView();
  useTopics("run");
  const status = useTrait("status");
  const runId = useTrait("run_id");
  return useLive() && isThinking(status, runId, conn.mirror.run);
}

export function StatusLine() {
  const status = useTrait("status");
  const pending = useTrait("pending");
  const tools = useTrait("frontend_tools");
  const live = useLive();
  const thinking = useThinking();
  // Once the last entry is answered, the kernel says "waiting" with nothing pending until the
  // next run starts: that moment reads as what was pending before it.
  const asked = useRef<boolean | null>(null);
  if (status !== "waiting") asked.current = null;
  else if (pending.length > 0) asked.current = asksTheUser(pending, tools);
  let text = "";
  if (!live) text = "Disconnected from the kernel";
  else if (status === "waiting") text = (asked.current ?? true) ? "Waiting for you" : "Running a tool";
  else if (thinking) text = "Thinking";
  const shown: ShownStatus = live ? status : "disconnected";
  return (
    <>
      <div class="agui-status" role="status" aria-live="polite" data-status={shown}>
        {text}
        {thinking && <Dots />}
      </div>
      <AnswerAnnouncer />
    </>
  );
}

function Dots() {
  return (
    <span class="agui-dots" aria-hidden="true">
      <i />
      <i />
      <i />
    </span>
  );
}

/** The end of the transcript while a run is active: its steps so far, and "Thinking" until its
 * first output. */
export function Progress() {
  const { conn } = useView();
  useTopics("run");
  const live = useLive();
  const thinking = useThinking();
  const run = conn.mirror.run;
  const hasSteps = run.active && (run.steps.length > 0 || run.finishedSteps.length > 0);
  return (
    <>
      {hasSteps && (
        <div class="agui-progress" role="group" aria-label="Progress">
          <StepList done={run.finishedSteps} current={run.steps[run.steps.length - 1]} working={live} />
        </div>
      )}
      {thinking && (
        <div class="agui-row agui-row-thinking" aria-hidden="true">
          <span class="agui-thinking">
            Thinking
            <Dots />
          </span>
        </div>
      )}
    </>
  );
}

/** Finished steps with a check mark, then the current one (spinning while the run works) or the
 * ones a run left unfinished. */
export function StepList({ done, current, unfinished = [], working = false }: { done: readonly string[]; current?: string | undefined; unfinished?: readonly string[]; working?: boolean }) {
  return (
    <>
      {done.map((step, i) => (
        <span key={`d${i}`} class="agui-step agui-step-done">
          <span class="agui-step-mark" aria-hidden="true">
            ✓
          </span>{" "}
          {step}
        </span>
      ))}
      {current !== undefined && (
        <span class="agui-step agui-step-current" aria-current="step">
          {working ? <span class="agui-spinner" aria-hidden="true" /> : <span class="agui-step-mark" aria-hidden="true">•</span>} {current}
        </span>
      )}
      {unfinished.map((step, i) => (
        <span key={`u${i}`} class="agui-step agui-step-unfinished">
          <span class="agui-step-mark" aria-hidden="true">
            –
          </span>{" "}
          {step}
          <span class="agui-visually-hidden"> (not finished)</span>
        </span>
      ))}
    </>
  );
}
