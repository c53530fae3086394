/** Message text, shown as plain text (pre-wrap). Never HTML: a later version adds sanitised
 * Markdown here, in one place. */
export function PlainText({ text, streaming = false }: { text: string; streaming?: boolean }) {
  return (
    <div class="agui-text">
      {text}
      {streaming && <span class="agui-caret" aria-hidden="true" />}
    </div>
  );
}
