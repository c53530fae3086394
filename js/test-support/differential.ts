/**
 * Two of the three readers of tests/test_differential.py, run in Node by scripts/differential.mjs:
 *
 * - the view's `Mirror`, fed the kernel's widget-wire messages (docs/wire.md) exactly as a view
 *   receives them;
 * - the official `@ag-ui/client`, fed the producer's raw events through `AbstractAgent.runAgent`,
 *   which applies enforcement, `transformChunks`, `verifyEvents` and `defaultApplyEvents`.
 *
 * Both report the messages and state they end with, so the Python side can compare them with the
 * kernel's pipeline.
 */
import { AbstractAgent, type BaseEvent, type Message, type RunAgentInput } from "@ag-ui/client";
import { Observable } from "rxjs";
import { Mirror } from "../src/mirror/mirror";

export type Outcome = { messages: unknown; state: unknown };
export type ClientOutcome = Outcome & { accepted: boolean; error: string | null };

/** What a view's mirror holds after applying `kernelMessages` in order. */
export function mirrorRead(kernelMessages: readonly unknown[]): Outcome {
  const mirror = new Mirror("differential-view");
  for (const message of kernelMessages) mirror.handle(message);
  return { messages: mirror.messages(), state: mirror.state };
}

/**
 * An agent whose run replays a recorded stream. Each event is emitted on its own macrotask, so
 * the client has applied everything before it when the next one arrives: a stream the verifier
 * rejects halfway leaves the agent holding exactly what was applied before the violation.
 */
class ReplayAgent extends AbstractAgent {
  private readonly recorded: readonly BaseEvent[];

  constructor(recorded: readonly BaseEvent[], initialMessages: Message[], initialState: unknown) {
    super({ threadId: "differential-thread", initialMessages, initialState });
    this.recorded = recorded;
  }

  override run(_input: RunAgentInput): Observable<BaseEvent> {
    const events = this.recorded;
    return new Observable<BaseEvent>((subscriber) => {
      let next = 0;
      let timer: NodeJS.Immediate | undefined;
      const emit = () => {
        if (subscriber.closed) return;
        if (next >= events.length) {
          subscriber.complete();
          return;
        }
        subscriber.next(events[next++] as BaseEvent);
        timer = setImmediate(emit);
      };
      timer = setImmediate(emit);
      return () => {
        if (timer !== undefined) clearImmediate(timer);
      };
    });
  }
}

/** What `@ag-ui/client` holds after `runAgent()` over `events`, and whether it accepted them. */
export async function clientRead(
  initialMessages: Message[],
  initialState: unknown,
  events: readonly BaseEvent[],
): Promise<ClientOutcome> {
  const agent = new ReplayAgent(events, initialMessages, initialState);
  let error: string | null = null;
  try {
    await agent.runAgent();
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  return { accepted: error === null, error, messages: agent.messages, state: agent.state };
}
