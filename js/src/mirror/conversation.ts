/**
 * The parts of one view's copy of the conversation, in one place so that the mirror's modules share
 * them: the Mirror reads them and applies kernel messages to them, the reducer applies AG-UI
 * events to them, and every change is noted in `changes` until the kernel message is applied.
 */
import type { RenderMessage } from "../kernel/wire";
import { Changes } from "./changes";
import { EventLog } from "./eventLog";
import { StatePrediction } from "./predict";
import { RunRecords } from "./records";
import { RunState } from "./run";
import { Transcript } from "./transcript";

export class Conversation {
  /** True once a snapshot for this view has been applied. */
  ready = false;
  readonly changes = new Changes();
  readonly transcript = new Transcript(this.changes);
  readonly run = new RunState(this.changes);
  readonly prediction = new StatePrediction();
  readonly records = new RunRecords(this.changes);
  readonly log = new EventLog();
  /** The shared state: replaced when it changes, never mutated. */
  state: unknown = {};
  /** What Python renderers made, by key, in arrival order. */
  readonly renders = new Map<string, RenderMessage>();
}
