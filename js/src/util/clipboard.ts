/** Copying text to the clipboard, in secure contexts (the Clipboard API) and plain-http pages
 * (a hidden text box and `execCommand("copy")`). */

export async function copyText(text: string): Promise<boolean> {
  const clipboard = (globalThis.navigator as Navigator | undefined)?.clipboard;
  if (clipboard && typeof clipboard.writeText === "function") {
    try {
      await clipboard.writeText(text);
      return true;
    } catch {
      // denied or not focused: try the old way
    }
  }
  try {
    const box = document.createElement("textarea");
    box.value = text;
    box.setAttribute("readonly", "");
    box.style.position = "fixed";
    box.style.opacity = "0";
    box.style.pointerEvents = "none";
    document.body.appendChild(box);
    box.select();
    const done = typeof document.execCommand === "function" && document.execCommand("copy");
    box.remove();
    return !!done;
  } catch {
    return false;
  }
}
