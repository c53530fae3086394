/**
 * The one thing the chat and the JupyterLab / Notebook 7 plugin share: the event the chat's
 * "Insert as a cell" button dispatches (bubbling and composed, from the button), and what it
 * carries. The plugin that inserts the cell sets `handled` and cancels the event; an event nobody
 * handled means this front end cannot add cells.
 */
export const INSERT_CELL_EVENT = "agui-widget:insert-cell";

export interface InsertCellDetail {
  /** the code the new cell holds */
  code: string;
  /** set by the plugin once the cell is in the notebook */
  handled?: boolean;
}
