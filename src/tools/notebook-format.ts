/**
 * Jupyter notebooks (nbformat 4, https://nbformat.readthedocs.io/en/latest/format_description.html)
 * as the Read and NotebookEdit tools see them. A notebook is kept as the parsed JSON it is, so that
 * every field cairn does not know (metadata, attachments, widget state) is written back untouched.
 */

export type NotebookCell = {
  cell_type: string;
  id?: string;
  source: string | string[];
  metadata?: Record<string, unknown>;
  outputs?: NotebookOutput[];
  execution_count?: number | null;
  [key: string]: unknown;
};

export type NotebookOutput = {
  output_type: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
  [key: string]: unknown;
};

export type Notebook = {
  cells: NotebookCell[];
  metadata: Record<string, unknown>;
  nbformat: number;
  nbformat_minor: number;
  [key: string]: unknown;
};

/** Parses a notebook's text; throws with the reason when it is not one cairn can show or edit. */
export function parseNotebook(text: string): Notebook {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`it is not valid JSON (${(error as Error).message})`);
  }
  const notebook = parsed as Partial<Notebook> | null;
  if (!notebook || typeof notebook !== "object" || !Array.isArray(notebook.cells))
    throw new Error("it has no `cells` list (not a Jupyter notebook)");
  if (typeof notebook.nbformat === "number" && notebook.nbformat < 4)
    throw new Error(`it is nbformat ${notebook.nbformat}; only nbformat 4 notebooks are supported`);
  for (const [index, cell] of notebook.cells.entries()) {
    if (!cell || typeof cell !== "object" || typeof cell.cell_type !== "string")
      throw new Error(`its cell ${index} has no cell_type`);
  }
  return notebook as Notebook;
}

/** A cell's source as one string (nbformat allows a string or a list of lines). */
export function sourceText(source: string | string[] | undefined): string {
  return Array.isArray(source) ? source.join("") : (source ?? "");
}

/** A source string as the list of lines Jupyter writes (each but the last ending in "\n"). */
export function sourceLines(text: string): string[] {
  if (text === "") return [];
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * How a cell is named to the model: its own `id` (nbformat 4.5 and later), else `cell-<index>`, as
 * the reference's tools do for notebooks written before cells had ids.
 */
export function cellIdOf(cell: NotebookCell, index: number): string {
  return typeof cell.id === "string" && cell.id !== "" ? cell.id : `cell-${index}`;
}

/** The index of the cell `id` names (its own id, or `cell-<index>`); -1 when none. */
export function findCell(notebook: Notebook, id: string): number {
  const own = notebook.cells.findIndex((cell) => cell.id === id);
  if (own !== -1) return own;
  const indexed = /^cell-(\d+)$/.exec(id);
  if (indexed) {
    const index = Number(indexed[1]);
    if (index < notebook.cells.length) return index;
  }
  return -1;
}

/** Cells carry ids from nbformat 4.5 on. */
export function usesCellIds(notebook: Notebook): boolean {
  return notebook.nbformat > 4 || (notebook.nbformat === 4 && notebook.nbformat_minor >= 5);
}

/** The notebook's language (for code cells), from its metadata; "python" when it names none. */
export function notebookLanguage(notebook: Notebook): string {
  const metadata = notebook.metadata ?? {};
  const info = metadata.language_info as { name?: unknown } | undefined;
  if (typeof info?.name === "string") return info.name;
  const kernel = metadata.kernelspec as { language?: unknown } | undefined;
  return typeof kernel?.language === "string" ? kernel.language : "python";
}

/**
 * The notebook's text as Jupyter writes it: the indentation the file had (Jupyter's own is one
 * space) and a final newline, so an edit changes only the lines of the cell it touches.
 */
export function serializeNotebook(notebook: Notebook, originalText: string): string {
  const indent = /^\{\r?\n([ \t]+)"/.exec(originalText)?.[1] ?? " ";
  return `${JSON.stringify(notebook, null, indent)}\n`;
}
