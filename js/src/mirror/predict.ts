/**
 * Predictive state: while a predicted tool's arguments stream, `state[stateKey]` follows the
 * (partial) argument. The rules come from the chat (the `predict_state` trait) and from a run's
 * `PredictState` CUSTOM event, which adds to them until the run ends. The kernel applies the same
 * rules to the same events (agui_widget/chat/_predict.py), so nothing extra travels.
 */
import * as untruncateModule from "untruncate-json";
import { preview, warn } from "../util/log";
import { type PredictRule, type ToolCall, parsePredictRule } from "../kernel/wire";
import { type Loose, isRecord, sameJson } from "./messages";

/** The CUSTOM event an agent sends to make state follow a tool's streamed arguments. */
export const PREDICT_STATE_EVENT = "PredictState";

export class StatePrediction {
  private chatRules: PredictRule[] = [];
  private runRules: PredictRule[] = [];

  /** The chat's rules (the `predict_state` trait). */
  setChatRules(rules: readonly PredictRule[]): void {
    this.chatRules = [...rules];
  }

  /** A run ended or started: its own rules are gone. */
  clearRun(): void {
    this.runRules = [];
  }

  /** A run's `PredictState` event sets its rules; one the kernel refuses (not a list, or a bad
   * rule in it) changes nothing here either, so the view predicts what the kernel predicts. */
  runEvent(value: unknown): void {
    if (value === undefined || value === null) {
      this.runRules = [];
      return;
    }
    const rules = Array.isArray(value) ? value.map(parsePredictRule) : [null];
    if (rules.some((rule) => rule === null)) {
      warn("a PredictState event that is not a list of {state_key, tool, tool_argument?} rules; ignored:", preview(value));
      return;
    }
    this.runRules = rules as PredictRule[];
  }

  /** True when any rule is in force (else a call's arguments need not be read at all). */
  get active(): boolean {
    return this.chatRules.length > 0 || this.runRules.length > 0;
  }

  /** The state once `call`'s arguments so far are applied to it, or undefined when they change
   * nothing (no rule for the tool, no such argument yet, the same value, a state not an object). */
  predict(call: ToolCall | undefined, state: unknown): unknown {
    const name = call?.function?.name;
    if (!call || !name || !isRecord(state)) return undefined;
    const rules = [...this.chatRules, ...this.runRules].filter((r) => r.tool === name);
    if (rules.length === 0) return undefined;
    const args = parsePartialJson(call.function.arguments ?? "");
    const changes: Loose = {};
    let changed = false;
    for (const rule of rules) {
      let value: unknown;
      if (rule.toolArgument === null) value = args;
      else if (isRecord(args) && rule.toolArgument in args) value = args[rule.toolArgument];
      else continue;
      if (value === undefined || value === null || sameJson(state[rule.stateKey], value)) continue;
      changes[rule.stateKey] = value;
      changed = true;
    }
    return changed ? { ...state, ...changes } : undefined;
  }
}

/** untruncate-json's function, whether the bundler picked its ES module or its CommonJS build. */
const untruncateJson: (json: string) => string = (() => {
  const mod = untruncateModule as unknown as { default: unknown };
  const fn = typeof mod.default === "function" ? mod.default : (mod.default as { default: unknown }).default;
  return fn as (json: string) => string;
})();

/** The JSON value an unfinished text holds (open strings, lists and objects closed), or undefined. */
export function parsePartialJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(untruncateJson(text));
  } catch {
    return undefined;
  }
}
