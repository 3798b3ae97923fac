import * as z from "zod";
import { readFile } from "../util/fs-async.js";
import { randomHex } from "../util/random-id.js";
import { BUILTIN_JSON_SCHEMAS } from "./builtin-json-schemas.js";
import { defineTool } from "./define.js";
import {
  cellIdOf,
  findCell,
  type Notebook,
  type NotebookCell,
  notebookLanguage,
  parseNotebook,
  serializeNotebook,
  sourceLines,
  sourceText,
  usesCellIds,
} from "./notebook-format.js";
import { resolveToolPath } from "./paths.js";
import { writeTextFile } from "./write-file.js";

const input = () =>
  z
    .object({
      notebook_path: z
        .string()
        .min(1)
        .describe(
          "The Jupyter notebook (.ipynb) to edit: an absolute path, or relative to the working directory.",
        ),
      cell_id: z
        .string()
        .optional()
        .describe(
          "The ID of the cell to edit (as Read shows it). When inserting, the new cell goes after this cell, or first when not given.",
        ),
      new_source: z.string().describe("The new source for the cell."),
      cell_type: z
        .enum(["code", "markdown"])
        .optional()
        .describe(
          "The type of the cell (code or markdown). Defaults to the current cell's type; required with edit_mode=insert.",
        ),
      edit_mode: z
        .enum(["replace", "insert", "delete"])
        .optional()
        .describe("The type of edit to make (replace, insert, delete). Defaults to replace."),
    })
    .refine((args) => args.edit_mode !== "insert" || args.cell_type !== undefined, {
      message: "cell_type is required when inserting a cell",
      path: ["cell_type"],
    })
    .refine((args) => args.edit_mode === "insert" || args.cell_id !== undefined, {
      message: "name the cell to replace or delete (cell_id)",
      path: ["cell_id"],
    });

export const notebookEditTool = defineTool({
  name: "NotebookEdit",
  effects: {
    kind: "edit",
    readOnly: false,
    network: false,
    paths: (args) => [{ path: args.notebook_path, access: "write" }],
  },
  display: (args, cwd) => {
    const mode = args.edit_mode ?? "replace";
    const where =
      mode === "insert"
        ? args.cell_id
          ? ` after cell ${args.cell_id}`
          : " at the top"
        : ` cell ${args.cell_id}`;
    const verb = mode === "insert" ? "Insert a cell in" : mode === "delete" ? "Delete" : "Edit";
    return {
      title:
        mode === "insert"
          ? `${verb} ${args.notebook_path}${where}`
          : `${verb}${where} of ${args.notebook_path}`,
      kind: "edit",
      locations: [{ path: resolveToolPath(cwd, args.notebook_path) }],
    };
  },
  description:
    "Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb), keeping the rest of the file " +
    "(other cells, their outputs, the notebook's metadata and nbformat) as it was. " +
    "Read the notebook first to see its cells and their ids. cell_id names the cell (for insert: the cell after which the " +
    "new one goes; without it the new cell goes first). edit_mode is replace (default), insert or delete; cell_type " +
    "(code or markdown) is required for insert and, for replace, changes the cell's type. Replacing a code cell clears its outputs.",
  input,
  jsonSchema: BUILTIN_JSON_SCHEMAS.NotebookEdit,
  async run(args, ctx) {
    const notebookPath = resolveToolPath(ctx.cwd, args.notebook_path);
    if (!notebookPath.toLowerCase().endsWith(".ipynb"))
      return {
        content: `${notebookPath} is not a Jupyter notebook (.ipynb); use Edit for other files.`,
        isError: true,
      };
    const original = await readFile(notebookPath, "utf8").catch(() => undefined);
    if (original === undefined) return { content: `Notebook does not exist: ${notebookPath}`, isError: true };
    let notebook: Notebook;
    try {
      notebook = parseNotebook(original);
    } catch (error) {
      return { content: `Cannot edit ${notebookPath}: ${(error as Error).message}.`, isError: true };
    }
    const mode = args.edit_mode ?? "replace";
    let index = -1;
    if (args.cell_id !== undefined) {
      index = findCell(notebook, args.cell_id);
      if (index === -1) {
        const ids = notebook.cells.map(cellIdOf);
        return {
          content: `Cell ${args.cell_id} was not found in ${notebookPath}. Its cells: ${ids.join(", ") || "(none)"}.`,
          isError: true,
        };
      }
    }
    let cellId: string;
    let cellType: string;
    let oldSource: string | undefined;
    if (mode === "insert") {
      const cell = newCell(notebook, args.cell_type!, args.new_source);
      index += 1; // after the named cell; first when none was named (index was -1)
      notebook.cells.splice(index, 0, cell);
      cellId = cellIdOf(cell, index);
      cellType = cell.cell_type;
    } else if (mode === "delete") {
      const [removed] = notebook.cells.splice(index, 1) as [NotebookCell];
      cellId = cellIdOf(removed, index);
      cellType = removed.cell_type;
      oldSource = sourceText(removed.source);
    } else {
      const cell = notebook.cells[index]!;
      oldSource = sourceText(cell.source);
      cellId = cellIdOf(cell, index);
      replaceCell(cell, args.new_source, args.cell_type);
      cellType = cell.cell_type;
    }
    const updated = serializeNotebook(notebook, original);
    await writeTextFile(notebookPath, updated);
    const done =
      mode === "insert"
        ? `Inserted ${cellType} cell ${cellId} at position ${index + 1}`
        : mode === "delete"
          ? `Deleted cell ${cellId}`
          : `Updated cell ${cellId}`;
    return {
      content: `${done} in ${notebookPath} (${notebook.cells.length} cells now).`,
      data: {
        new_source: args.new_source,
        ...(oldSource !== undefined ? { old_source: oldSource } : {}),
        cell_id: cellId,
        cell_type: cellType,
        language: notebookLanguage(notebook),
        edit_mode: mode,
        notebook_path: notebookPath,
        original_file: original,
        updated_file: updated,
      },
    };
  },
});

/** A cell as Jupyter makes one: an id from nbformat 4.5 on, no outputs yet for code. */
function newCell(notebook: Notebook, type: string, source: string): NotebookCell {
  const id = usesCellIds(notebook) ? { id: uniqueId(notebook) } : {};
  if (type === "code")
    return {
      cell_type: "code",
      ...id,
      execution_count: null,
      metadata: {},
      outputs: [],
      source: sourceLines(source),
    };
  return { cell_type: type, ...id, metadata: {}, source: sourceLines(source) };
}

/**
 * The cell's new source (and type): a code cell's outputs and execution count belonged to the old
 * source, so they go; a markdown cell has neither (nbformat forbids them there).
 */
function replaceCell(cell: NotebookCell, source: string, type: string | undefined): void {
  cell.source = sourceLines(source);
  if (type !== undefined && type !== cell.cell_type) cell.cell_type = type;
  if (cell.cell_type === "code") {
    cell.execution_count = null;
    cell.outputs = [];
  } else {
    delete cell.execution_count;
    delete cell.outputs;
  }
}

function uniqueId(notebook: Notebook): string {
  for (;;) {
    const id = randomHex(4); // 8 hex digits, as Jupyter makes them
    if (!notebook.cells.some((cell) => cell.id === id)) return id;
  }
}
