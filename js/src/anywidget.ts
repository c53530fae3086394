/** The parts of anywidget's model this view uses (anywidget >= 0.9, `render({ model, el })`). */

// anywidget passes callbacks with different argument lists per event name.
export type ModelCallback = (...args: any[]) => void;

export interface AnyModel {
  get(name: string): unknown;
  on(event: string, callback: ModelCallback): void;
  off(event?: string | null, callback?: ModelCallback | null): void;
  send(content: unknown, callbacks?: unknown, buffers?: unknown): void;
}

export interface RenderProps {
  model: AnyModel;
  el: HTMLElement;
}
