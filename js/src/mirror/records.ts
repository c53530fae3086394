/**
 * Run records: what the event inspector shows as a run's "what was sent", exports, and reads a
 * reloaded run's times from. A view asks the kernel for one when it needs it (`run_record`) and
 * keeps the answers, a bounded number of them, since each holds its run's whole input.
 */
import type { RunRecordMessage, RunRecordRequest } from "../kernel/wire";
import type { Changes } from "./changes";

/**
 * A run's record as this view has it (docs/wire.md, `run_record`): asked and not yet answered,
 * the kernel's text, or the kernel's reason for having none. `partial`: the text came while its
 * run went on, and the run has ended since, so it lacks the run's last events.
 */
export type RunRecordEntry = { status: "asking" } | { status: "ready"; text: string; partial?: boolean } | { status: "error"; error: string };

/** How many answered run records a view keeps: each holds its run's whole input (the transcript
 * so far), so they are bounded; the oldest answer is dropped first. */
export const RECORDS_KEPT = 20;

/** How long a `run_record` question waits for its answer before the view says none came (a
 * kernel too old to know the request refuses it with a notice, and never answers). */
export const RECORD_ANSWER_MS = 20_000;
/** The longest run id a `run_record` request may name (agui_widget/wire/_requests.py). */
const MAX_RUN_ID = 200;

export class RunRecords {
  /** run id -> its record (insertion order: the oldest is dropped first) */
  private records = new Map<string, RunRecordEntry>();

  constructor(private readonly changes: Changes) {}

  /** The record of run `runId` as this view has it, or undefined when it was never asked for. */
  get(runId: string): RunRecordEntry | undefined {
    return this.records.get(runId);
  }

  /**
   * Asks the kernel for a run's record, once: nothing is sent while it is asked or known (unless
   * what is known is partial). `send` carries the request and says whether it could go; false
   * (no kernel) leaves nothing behind, so the caller can say why and a later call asks again.
   */
  ask(runId: string, send: (request: RunRecordRequest) => boolean): boolean {
    const known = this.records.get(runId);
    if (known !== undefined && !(known.status === "ready" && known.partial)) return true;
    if (runId.length > MAX_RUN_ID) {
      // The kernel refuses such a request (docs/wire.md): no answer would ever come.
      this.keep(runId, { status: "error", error: "This run's id is too long to ask the kernel for its record." });
      this.changes.touch("records");
      this.changes.flush();
      return true;
    }
    if (!send({ kind: "run_record", runId })) return false;
    this.trim();
    const asking: RunRecordEntry = { status: "asking" };
    this.keep(runId, asking);
    this.changes.touch("records");
    this.changes.flush();
    const timer: unknown = setTimeout(() => {
      if (this.records.get(runId) !== asking) return; // answered, or asked again since
      this.keep(runId, { status: "error", error: "The kernel did not answer. Is its agui-widget older than this view's?" });
      this.changes.touch("records");
      this.changes.flush();
    }, RECORD_ANSWER_MS);
    (timer as { unref?: () => void }).unref?.(); // Node (the tests): a pending question keeps no process alive
    return true;
  }

  /** The kernel's answer: kept when this view asked for that run (every view gets every answer). */
  answer(msg: RunRecordMessage): void {
    if (this.records.get(msg.runId)?.status !== "asking") return;
    const entry: RunRecordEntry =
      typeof msg.recording === "string" ? { status: "ready", text: msg.recording } : { status: "error", error: msg.error || "The kernel has no record of this run." };
    this.keep(msg.runId, entry);
    this.changes.touch("records");
  }

  /** A record that arrived while its run went on holds only part of it: at the run's end it is
   * marked partial, so the next use asks again. (An answer still on its way was made after the
   * end: the kernel sends pending events ahead of anything else.) */
  markPartial(runId: string): void {
    const known = this.records.get(runId);
    if (known?.status === "ready" && !known.partial) {
      this.records.set(runId, { ...known, partial: true });
      this.changes.touch("records");
    }
  }

  private keep(runId: string, entry: RunRecordEntry): void {
    this.records.delete(runId);
    this.records.set(runId, entry);
  }

  /**
   * Drops the oldest answers past RECORDS_KEPT. Done when a new question goes, not when answers
   * come: by then the views have shown (and hold) what came, so an open section never loses its
   * answer to a burst of others and asks again. A question still out keeps its place.
   */
  private trim(): void {
    let answered = 0;
    for (const e of this.records.values()) if (e.status !== "asking") answered++;
    for (const [id, old] of this.records) {
      if (answered <= RECORDS_KEPT) break;
      if (old.status === "asking") continue;
      this.records.delete(id);
      answered--;
    }
  }
}
