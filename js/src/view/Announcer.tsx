/** A polite live region, visually hidden, that says once that an answer is finished and how it
 * begins (../logic/announce.ts), and is emptied when the next run starts. */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { answerEnded, finishedAnswer } from "../logic/announce";
import { useView } from "./context";
import { useTrait } from "./hooks";
import { useLive } from "./KernelBanner";

export function AnswerAnnouncer() {
  const { conn } = useView();
  const status = useTrait("status");
  const live = useLive();
  const before = useRef(status);
  const [said, setSaid] = useState("");
  useLayoutEffect(() => {
    const was = before.current;
    before.current = status;
    if (status === "running") setSaid("");
    else if (live && answerEnded(was, status)) setSaid(finishedAnswer(conn.mirror.messages()) ?? "");
  }, [status, live, conn]);
  return (
    <div class="agui-visually-hidden agui-announcer" role="status" aria-live="polite" aria-atomic="true">
      {said}
    </div>
  );
}
