/** The kernel behind this view is gone: one banner saying so and what to do, instead of
 * requests that fail one by one. */
import type { Link } from "../kernel/connection";
import { useView } from "./context";
import { useSubscription } from "./hooks";
import { Icon } from "./icons";

/** The link to the kernel, re-rendering when it is lost. */
export function useLink(): Link {
  const { conn } = useView();
  useSubscription((listener) => conn.subscribeLink(listener), [conn]);
  return conn.link;
}

/** True while requests reach the kernel. */
export function useLive(): boolean {
  return useLink() === "live";
}

export function KernelBanner({ id }: { id: string }) {
  const link = useLink();
  if (link === "live") return null;
  if (link === "unanswered") {
    return (
      <div class="agui-kernel-banner" id={id} role="alert">
        <Icon name="unlink" />
        <div class="agui-kernel-banner-text">
          <strong>No kernel answered:</strong> this chat runs only while its notebook's kernel does (a saved page or an export has
          none). Run its cell again to chat.
        </div>
      </div>
    );
  }
  const what = link === "restarted" ? "The kernel restarted" : "The kernel is no longer reachable";
  return (
    <div class="agui-kernel-banner" id={id} role="alert">
      <Icon name="unlink" />
      <div class="agui-kernel-banner-text">
        <strong>{what}:</strong> this chat is disconnected and can no longer send. Run its cell again to continue.
      </div>
    </div>
  );
}
