/** ‹ 1 / 2 ›: the versions a Regenerate or an Edit kept, under the answer or the edited message.
 * The kernel keeps the versions and says where the branch shown forks (the `branch_points`
 * trait, between runs); these controls only ask it to show another (`branch`), and the transcript
 * the kernel sends back is the new branch. */
import { useLayoutEffect, useRef } from "preact/hooks";
import type { BranchPoint } from "../kernel/wire";
import type { Connection } from "../kernel/connection";
import { useView } from "./context";
import { useTrait } from "./hooks";
import { useLive } from "./KernelBanner";

/** The forks whose "n of m" goes under message `id`; none while a run is on (nothing can switch then). */
export function useBranchPoints(id: string): BranchPoint[] {
  const points = useTrait("branch_points");
  const status = useTrait("status");
  const live = useLive();
  if (!live || (status !== "idle" && status !== "error")) return [];
  return points.filter((p) => p.at === id);
}

type Step = "previous" | "next";

function Chevron({ back }: { back: boolean }) {
  return (
    <svg class="agui-icon" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d={back ? "M10 4L6 8l4 4" : "M6 4l4 4-4 4"} />
    </svg>
  );
}

/** The button the keyboard was on when a switch was asked, by fork: the controls of that fork
 * (under another message once the kernel shows the other version) take the focus back. */
const refocus = new WeakMap<Connection, { parentId: string | null; step: Step }>();

export function BranchSwitches({ points }: { points: BranchPoint[] }) {
  return (
    <>
      {points.map((point) => (
        <BranchSwitch key={point.parentId ?? ""} point={point} />
      ))}
    </>
  );
}

function BranchSwitch({ point }: { point: BranchPoint }) {
  const { conn } = useView();
  const buttons = { previous: useRef<HTMLButtonElement>(null), next: useRef<HTMLButtonElement>(null) };
  const noun = point.kind === "edit" ? "version" : "answer";
  const first = point.index === 0;
  const last = point.index === point.count - 1;
  useLayoutEffect(() => {
    const wanted = refocus.get(conn);
    if (!wanted || wanted.parentId !== point.parentId) return;
    refocus.delete(conn);
    const step = wanted.step === "previous" ? (first ? "next" : "previous") : last ? "previous" : "next";
    buttons[step].current?.focus({ preventScroll: true });
  }, [point.parentId, point.index]);
  const show = (step: Step, button: HTMLButtonElement) => {
    const index = point.index + (step === "previous" ? -1 : 1);
    if (!conn.send({ kind: "branch", parentId: point.parentId, index })) return;
    if (button.ownerDocument.activeElement === button) refocus.set(conn, { parentId: point.parentId, step });
  };
  const label = `${noun === "answer" ? "Answer" : "Version"} ${point.index + 1} of ${point.count}`;
  return (
    <span class="agui-branch" role="group" aria-label={label} data-branch-kind={point.kind}>
      <button
        ref={buttons.previous}
        type="button"
        class="agui-action agui-branch-step"
        aria-label={`Previous ${noun}`}
        title={`Previous ${noun}`}
        disabled={first}
        onClick={(e) => show("previous", e.currentTarget)}
      >
        <Chevron back />
      </button>
      <span class="agui-branch-count" aria-hidden="true">
        {point.index + 1} / {point.count}
      </span>
      <button
        ref={buttons.next}
        type="button"
        class="agui-action agui-branch-step"
        aria-label={`Next ${noun}`}
        title={`Next ${noun}`}
        disabled={last}
        onClick={(e) => show("next", e.currentTarget)}
      >
        <Chevron back={false} />
      </button>
    </span>
  );
}
