/**
 * Where keyboard focus goes once the user answered something the chat waited for.
 *
 * The answered card's buttons are disabled at once and the card then goes away; left there, focus
 * would fall to the page and the next keystrokes would reach the notebook (JupyterLab's command
 * mode: `a`, `b`, `d d` edit cells). It moves on instead: to the first control of the next card
 * still waiting for an answer, else to the message box.
 */

/** Marks the part of a card (or of the bottom panel) that waits for the user's answer. */
export const AWAITING_ATTR = "data-agui-awaiting";
/** Marks such a part once the user answered it (until the kernel refuses the answer). */
export const ANSWERED_ATTR = "data-agui-answered";

const CONTROLS = "button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled])";

export function moveFocusOnward(answered: HTMLElement | null): void {
  const chat = answered?.closest(".agui-chat");
  if (!answered || !chat) return;
  for (const part of chat.querySelectorAll<HTMLElement>(`[${AWAITING_ATTR}]`)) {
    if (part === answered || part.hasAttribute(ANSWERED_ATTR) || part.contains(answered) || answered.contains(part)) continue;
    const control = part.querySelector<HTMLElement>(CONTROLS);
    if (control) {
      control.focus();
      return;
    }
  }
  focusMessageBox(chat);
}

/** Puts the focus in the message box of the chat that holds `inside`. */
export function focusMessageBox(inside: Element | null): void {
  inside?.closest(".agui-chat")?.querySelector<HTMLElement>('textarea[aria-label="Message"]')?.focus();
}
