/**
 * An attached image at full size, over the page: a modal dialog (the browser's own `<dialog>`,
 * so the rest of the page is inert and the dialog sits above any notebook container), named for
 * the file, closed by its Close button, Escape or a click beside the image. Focus goes to Close
 * on opening and back to the thumbnail that opened it on closing.
 */
import { useEffect, useId, useRef } from "preact/hooks";

type Props = {
  src: string;
  name: string;
  /** the element focus goes back to once the dialog closes */
  opener: { current: HTMLElement | null };
  onClose: () => void;
};

/** Shows the dialog as modal where the browser can; as an open dialog elsewhere (jsdom). */
function show(dialog: HTMLDialogElement): void {
  if (typeof dialog.showModal === "function") {
    if (!dialog.open) dialog.showModal();
  } else {
    dialog.setAttribute("open", "");
  }
}

export function ImageViewer({ src, name, opener, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const titleId = `agui-image-${useId()}`;

  useEffect(() => {
    const node = dialog.current;
    if (!node) return;
    show(node);
    closeButton.current?.focus();
    const back = opener.current;
    return () => {
      if (node.open && typeof node.close === "function") node.close();
      back?.focus();
    };
  }, []);

  const onKeyDown = (event: KeyboardEvent) => {
    // Escape closes this dialog only: the notebook around must not take it as its own.
    event.stopPropagation();
    if (event.key !== "Escape") return;
    event.preventDefault();
    onClose();
  };
  return (
    <dialog
      ref={dialog}
      class="agui-image-viewer"
      role="dialog"
      aria-modal="true"
      aria-labelledby={titleId}
      onKeyDown={onKeyDown}
      onCancel={(event) => {
        event.preventDefault(); // closed by onClose, so the component and the dialog agree
        onClose();
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose(); // a click on the backdrop
      }}
    >
      <div class="agui-image-viewer-head">
        <span class="agui-image-viewer-name" id={titleId}>
          {name}
        </span>
        <button type="button" ref={closeButton} class="agui-btn agui-btn-quiet agui-image-viewer-close" aria-label="Close" title="Close (Escape)" onClick={onClose}>
          ×
        </button>
      </div>
      <img class="agui-image-viewer-img" src={src} alt={name} referrerpolicy="no-referrer" />
    </dialog>
  );
}
