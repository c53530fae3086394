/** `notice` messages from the kernel (a refused request, say); info notices fade by themselves.
 * The same text again shows once, with how many times it came. */
import { useView } from "./context";
import { useNotices } from "./hooks";

export function Notices() {
  const { conn } = useView();
  const notices = useNotices();
  if (notices.length === 0) return null;
  return (
    <div class="agui-notices">
      {notices.map((n) => (
        <div key={n.id} class={`agui-notice agui-notice-${n.level}`} role={n.level === "info" ? "status" : "alert"}>
          <span class="agui-notice-text">{n.text}</span>
          {n.count > 1 && (
            <span class="agui-notice-count" title={`${n.count} times`}>
              <span aria-hidden="true">×{n.count}</span>
              <span class="agui-visually-hidden">{n.count} times</span>
            </span>
          )}
          <button type="button" class="agui-btn agui-btn-quiet" aria-label="Dismiss notice" onClick={() => conn.notices.dismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
