/** What the A2UI renderer (static/a2ui.js, ./render.ts) and the view (./Surface.tsx) share. */

/** A user's action on a surface, as the kernel's `a2ui_action` request carries it. */
export type UserAction = {
  name: string;
  surfaceId: string;
  sourceComponentId: string;
  timestamp: string;
  context: Record<string, unknown>;
};

export type MountOptions = { dark: boolean; onAction(action: UserAction): void };
/** Surfaces drawn into an element: `dispose` removes them. */
export type Mounted = { surfaceIds: string[]; dispose(): void };
/** What static/a2ui.js exports. */
export type A2uiRenderer = { mount(el: HTMLElement, operations: unknown, options: MountOptions): Mounted };
