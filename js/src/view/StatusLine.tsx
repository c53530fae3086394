/** One line under the transcript saying what the chat is doing, for eyes and screen readers. */
import { useView } from "./context";
import { useTopics, useTrait } from "./hooks";

export function StatusLine() {
  const { conn } = useView();
  useTopics("run");
  const status = useTrait("status");
  const run = conn.mirror.run;
  let text = "";
  if (status === "waiting") text = "Waiting for you";
  // Before RUN_STARTED reaches this view (the kernel may report "running" first), or before the
  // run's first token.
  else if (status === "running" && (!run.active || !run.sawOutput)) {
    const step = run.steps[run.steps.length - 1];
    text = step ? `Thinking… (${step})` : "Thinking…";
  }
  return (
    <div class="agui-status" role="status" aria-live="polite" data-status={status}>
      {text}
    </div>
  );
}
