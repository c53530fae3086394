/** Small inline icons (no icon font, no files). Decorative: every button using one has a name. */
import type { JSX } from "preact";

type IconProps = { name: keyof typeof PATHS };

const PATHS = {
  copy: "M5.5 5.5h7v8h-7z M3.5 10.5h-1v-8h7v1",
  check: "M3 8.5l3 3 7-7",
  edit: "M10.5 2.5l3 3-7.5 7.5H3v-3z M9 4l3 3",
  regenerate: "M13 8a5 5 0 1 1-1.5-3.6 M13 2.5v3h-3",
  trash: "M3 4.5h10 M6.5 4.5V3h3v1.5 M4.5 4.5l.7 9h5.6l.7-9",
  braces: "M6 2.5c-2 0-1.5 2.5-1.5 3.5S3 8 3 8s1.5 1 1.5 2-.5 3.5 1.5 3.5 M10 2.5c2 0 1.5 2.5 1.5 3.5S13 8 13 8s-1.5 1-1.5 2 .5 3.5-1.5 3.5",
  events: "M2.5 4h2 M6.5 4h7 M2.5 8h2 M6.5 8h7 M2.5 12h2 M6.5 12h7",
  chevron: "M6 4l4 4-4 4",
  retry: "M13 8a5 5 0 1 1-1.5-3.6 M13 2.5v3h-3",
  unlink: "M6.5 9.5l-2 2a2.1 2.1 0 0 1-3-3l2-2 M9.5 6.5l2-2a2.1 2.1 0 0 1 3 3l-2 2 M5 2.5v2 M2.5 5h2 M11 13.5v-2 M13.5 11h-2",
  agent: "M8 2.5v2 M4.5 6.5h7a1 1 0 0 1 1 1v4a1 1 0 0 1-1 1h-7a1 1 0 0 1-1-1v-4a1 1 0 0 1 1-1z M6.5 9.5h0 M9.5 9.5h0 M2 9v1.5 M14 9v1.5",
  user: "M8 8a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z M3 13.5c.6-2.3 2.6-3.5 5-3.5s4.4 1.2 5 3.5",
  alert: "M8 2.5l6 10.5H2z M8 6.5v3 M8 11.4v.1",
  threads: "M2.5 3.5h8v5.5h-4.5l-2.5 2v-2h-1z M12.5 6.5h1v5.5h-1v2l-2.5-2h-3.5",
  clip: "M10.5 5l-4.6 4.6a1.2 1.2 0 0 0 1.7 1.7l4.9-4.9a2.4 2.4 0 0 0-3.4-3.4L4.2 8a3.6 3.6 0 0 0 5.1 5.1l4-4",
} as const;

export function Icon({ name }: IconProps): JSX.Element {
  return (
    <svg class="agui-icon" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} />
    </svg>
  );
}
