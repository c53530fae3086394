/** Messages sent from this view that the kernel has not shown yet (../kernel/outbox.ts): a kernel reads
 * them only once the cell it runs ends, so each shows at once, marked as waiting for the kernel. */
import { OutgoingAttachments } from "./Attachments";
import { useOutbox } from "./hooks";
import { FoldingText } from "./Text";

const WHY_WAITING = "The kernel reads it as soon as it is free (a running cell keeps it busy).";

export function OutgoingList() {
  const outgoing = useOutbox();
  if (outgoing.length === 0) return null;
  return (
    <>
      {outgoing.map((m) => (
        <div key={m.key} class="agui-row agui-row-user agui-row-queued agui-row-outgoing" data-outgoing={m.key}>
          <div class="agui-bubble agui-bubble-user">
            {m.text !== "" && <FoldingText text={m.text} />}
            <OutgoingAttachments files={m.files} />
            <div class="agui-queued-tag agui-waiting-tag">
              waiting for the kernel…<span class="agui-visually-hidden"> {WHY_WAITING}</span>
            </div>
          </div>
        </div>
      ))}
    </>
  );
}
