/** The chat's branding (`AgentChat(title=, welcome=, placeholder=, avatars=)` and the assistant's
 * name): what the kernel set, drawn here; every value follows the traits live. */
import { useState } from "preact/hooks";
import { useTrait } from "./hooks";
import { Icon } from "./icons";
import { Markdown } from "./Markdown";

/** Who speaks in a row: the person at the notebook, or the agent. */
type Role = "user" | "assistant";

/** Images an avatar may be: the kernel checks too, and a view draws no other URL. */
const IMAGE_URL = /^(https?:\/\/[^\s"'<>]+|data:image\/(png|jpeg|gif|webp|svg\+xml);base64,[a-z0-9+/=\s]+)$/i;
const ANY_URL = /^\s*[a-z][a-z0-9+.-]*:/i;
const MAX_TEXT = 16;

export type Avatar = { image: string } | { text: string } | null;

/** An avatar as given: an image URL, a short text, or nothing (another URL, or too long). */
export function avatarOf(value: unknown): Avatar {
  if (typeof value !== "string" || value.trim() === "") return null;
  const given = value.trim();
  if (IMAGE_URL.test(given)) return { image: given };
  if (ANY_URL.test(given) || [...given].length > MAX_TEXT) return null;
  return { text: given };
}

/** The assistant's name: the one set for it, else the active agent's of several, else "Assistant". */
export function useAssistantName(): string {
  const own = useTrait("assistant_name");
  const picked = useTrait("agent_name");
  return own || picked || "Assistant";
}

/** The avatar beside `role`'s messages: the chat's for that role, else the default (an icon for
 * the assistant, none for the user). Hidden from screen readers: the name beside it says who. */
export function RoleAvatar({ role, name }: { role: Role; name: string }) {
  const avatar = avatarOf(useTrait("avatars")[role]);
  const [broken, setBroken] = useState<string | null>(null);
  if (avatar && "image" in avatar && broken !== avatar.image) {
    return (
      <span class="agui-avatar agui-avatar-image" aria-hidden="true">
        <img src={avatar.image} alt={name} referrerpolicy="no-referrer" onError={() => setBroken(avatar.image)} />
      </span>
    );
  }
  if (avatar && "text" in avatar) {
    return (
      <span class="agui-avatar agui-avatar-text" aria-hidden="true">
        {avatar.text}
      </span>
    );
  }
  if (role === "user") return null;
  return (
    <span class="agui-avatar" aria-hidden="true">
      <Icon name="agent" />
    </span>
  );
}

/** The title in the toolbar, when the chat has one. */
export function ChatTitle() {
  const title = useTrait("title");
  if (!title) return null;
  return (
    <span class="agui-chat-title" title={title}>
      {title}
    </span>
  );
}

/** The welcome of an empty chat, as Markdown (rendered and made safe as agent text is), or null
 * for the view's own line. */
export function Welcome() {
  const welcome = useTrait("welcome");
  if (!welcome) return null;
  return (
    <div class="agui-welcome-text">
      <Markdown text={welcome} />
    </div>
  );
}
