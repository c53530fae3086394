/**
 * agui-widget's JupyterLab and Notebook 7 plugin: code from the chat goes into a new code cell
 * right below the cell whose output holds the chat.
 *
 * The chat (an anywidget in a cell's output) cannot reach the notebook; it dispatches a bubbling,
 * composed `agui-widget:insert-cell` event from the button. This plugin listens on the document,
 * finds the notebook and the cell holding the event's target, inserts the cell through the
 * notebook's model, and marks the event handled (`detail.handled`, `preventDefault()`), so the
 * chat knows. Where no plugin listens (marimo, Voilà, VS Code) or the chat is in no cell (an
 * output view, the sidebar), nobody marks it and the chat copies the code instead.
 *
 * It imports nothing from `@jupyterlab/*`: the application and its widgets are read through the
 * few members used here (duck-typed), so the built extension ships no copy of them and shares
 * nothing that could disagree with the page's versions.
 */

import { INSERT_CELL_EVENT, type InsertCellDetail } from "./event";

export { INSERT_CELL_EVENT, type InsertCellDetail } from "./event";

/** The parts of a notebook cell widget used here. */
interface CellLike {
  node: HTMLElement;
}

/** The parts of a Notebook widget (`NotebookPanel.content`) used here. */
interface NotebookLike {
  widgets: readonly CellLike[];
  activeCellIndex: number;
  model: { sharedModel: { insertCell(index: number, cell: { cell_type: "code"; source: string }): unknown } } | null;
  scrollToCell?(cell: CellLike): unknown;
}

/** The parts of a main-area widget used here (a NotebookPanel has a Notebook as its `content`). */
interface WidgetLike {
  node?: HTMLElement;
  content?: unknown;
}

/** The parts of a JupyterLab or Notebook 7 application used here. */
export interface AppLike {
  shell: { widgets(area?: string): Iterable<WidgetLike>; currentWidget: WidgetLike | null };
}

function isNotebook(value: unknown): value is NotebookLike {
  const notebook = value as Partial<NotebookLike> | null;
  return !!notebook && Array.isArray(notebook.widgets) && typeof notebook.activeCellIndex === "number" && !!notebook.model?.sharedModel;
}

/** The main area's widgets; none where the application has no such shell (Voilà's). */
function mainWidgets(app: AppLike): WidgetLike[] {
  const widgets: WidgetLike[] = [];
  const shell = app.shell as Partial<AppLike["shell"]> | undefined;
  try {
    for (const widget of shell?.widgets?.("main") ?? []) widgets.push(widget);
  } catch {
    // a shell without that area: the current widget is all there is
  }
  const current = shell?.currentWidget;
  if (current) widgets.push(current);
  return widgets;
}

/** The notebook and the index of the cell whose element holds `target`, if any. */
export function cellHolding(app: AppLike, target: Node): { notebook: NotebookLike; index: number } | null {
  for (const widget of mainWidgets(app)) {
    if (!widget.node?.contains(target) || !isNotebook(widget.content)) continue;
    const notebook = widget.content;
    const index = notebook.widgets.findIndex((cell) => cell.node.contains(target));
    if (index !== -1) return { notebook, index };
  }
  return null;
}

/** Inserts a code cell holding `code` below cell `index` and makes it the active cell. */
export function insertBelow(notebook: NotebookLike, index: number, code: string): void {
  notebook.model?.sharedModel.insertCell(index + 1, { cell_type: "code", source: code });
  notebook.activeCellIndex = index + 1;
  const inserted = notebook.widgets[index + 1];
  if (inserted && typeof notebook.scrollToCell === "function") {
    // Scrolling is a courtesy: a notebook that cannot scroll there still has the cell.
    Promise.resolve(notebook.scrollToCell(inserted)).catch(() => undefined);
  }
}

/** Handles the chat's insert events on `target` for `app`; returns the remover. */
export function listenForInserts(app: AppLike, target: EventTarget = document): () => void {
  const onInsert = (event: Event) => {
    const detail = (event as CustomEvent<InsertCellDetail>).detail;
    if (!detail || typeof detail.code !== "string" || detail.handled) return;
    const origin = event.composedPath()[0] ?? event.target;
    if (!(origin instanceof Node)) return;
    const found = cellHolding(app, origin);
    if (!found) return;
    try {
      insertBelow(found.notebook, found.index, detail.code);
    } catch (error) {
      console.warn("[agui-widget] could not insert a cell:", error);
      return;
    }
    detail.handled = true;
    event.preventDefault();
  };
  target.addEventListener(INSERT_CELL_EVENT, onInsert);
  return () => target.removeEventListener(INSERT_CELL_EVENT, onInsert);
}

const plugin = {
  id: "agui-widget:insert-cell",
  description: "Puts code from an agui-widget chat into a new cell below the chat's cell.",
  autoStart: true,
  activate(app: AppLike): void {
    listenForInserts(app);
  },
};

export default plugin;
