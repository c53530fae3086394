/** What the chat is doing, for eyes and screen readers: a line under the transcript
 * ("Thinking" with moving dots until the first token), and the run's steps. */
import { useView } from "./context";
import { useTopics, useTrait } from "./hooks";

export function StatusLine() {
  const { conn } = useView();
  useTopics("run");
  const status = useTrait("status");
  const run = conn.mirror.run;
  let text = "";
  let thinking = false;
  if (status === "waiting") text = "Waiting for you";
  // Before RUN_STARTED reaches this view (the kernel may report "running" first), or before the
  // run's first token.
  else if (status === "running" && (!run.active || !run.sawOutput)) {
    thinking = true;
    text = "Thinking";
  }
  return (
    <div class="agui-status" role="status" aria-live="polite" data-status={status}>
      {text}
      {thinking && (
        <span class="agui-dots" aria-hidden="true">
          <i />
          <i />
          <i />
        </span>
      )}
    </div>
  );
}

/** STEP_STARTED / STEP_FINISHED of the active run: the finished steps, then the current one. */
export function Progress() {
  const { conn } = useView();
  useTopics("run");
  const run = conn.mirror.run;
  if (!run.active || (run.steps.length === 0 && run.finishedSteps.length === 0)) return null;
  const current = run.steps[run.steps.length - 1];
  return (
    <div class="agui-progress" aria-label="Progress">
      {run.finishedSteps.map((step, i) => (
        <span key={`d${i}`} class="agui-step agui-step-done">
          <span class="agui-step-mark" aria-hidden="true">
            ✓
          </span>{" "}
          {step}
        </span>
      ))}
      {current !== undefined && (
        <span class="agui-step agui-step-current" aria-current="step">
          <span class="agui-spinner" aria-hidden="true" /> {current}
        </span>
      )}
    </div>
  );
}
