/** Text shown as text (pre-wrap): user messages, queued messages, notes. Never HTML; agent
 * text that is Markdown goes through ./Markdown.tsx instead. */
export function PlainText({ text }: { text: string }) {
  return <div class="agui-text">{text}</div>;
}
