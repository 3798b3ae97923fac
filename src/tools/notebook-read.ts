import {
  cellIdOf,
  type NotebookOutput,
  notebookLanguage,
  parseNotebook,
  sourceText,
} from "./notebook-format.js";
import type { ToolOutput } from "./types.js";

/** How much of one output a cell shows; long outputs keep their start and end. */
const OUTPUT_CHARS = 10_000;

/**
 * Read of an `.ipynb`: every cell as `<cell id="…">` with its type (markdown and raw cells say so),
 * its source, and its outputs as text: streams, `text/plain` results, errors with their traceback
 * (terminal colours removed). Images and other rich outputs are named with their type and size, not
 * shown. `offset`/`limit` pick lines of this rendering, as they pick lines of a text file.
 */
export function readNotebook(
  filePath: string,
  text: string,
  fileSize: number,
  range: { offset?: number | undefined; limit: number },
): ToolOutput {
  let notebook: ReturnType<typeof parseNotebook>;
  try {
    notebook = parseNotebook(text);
  } catch (error) {
    return { content: `Cannot read ${filePath} as a notebook: ${(error as Error).message}.`, isError: true };
  }
  const language = notebookLanguage(notebook);
  const cells = notebook.cells.map((cell, index) => {
    const id = cellIdOf(cell, index);
    const type = cell.cell_type === "code" ? "" : `<cell_type>${cell.cell_type}</cell_type>`;
    const outputs = (cell.outputs ?? []).map(renderOutput).filter((output) => output !== "");
    return {
      id,
      cellType: cell.cell_type,
      source: sourceText(cell.source),
      outputs,
      rendered:
        `<cell id="${id}">${type}${sourceText(cell.source)}</cell id="${id}">` +
        outputs.map((output) => `\n<output>\n${output}\n</output>`).join(""),
    };
  });
  const whole =
    cells.length === 0
      ? `The notebook ${filePath} has no cells.`
      : cells.map((cell) => cell.rendered).join("\n");
  const lines = whole.split("\n");
  const startLine = Math.max(1, range.offset ?? 1);
  const picked = lines.slice(startLine - 1, startLine - 1 + range.limit);
  const endLine = startLine + picked.length - 1;
  let content = picked.join("\n");
  if (startLine > 1 || endLine < lines.length) {
    content += `\n\n[The notebook shows as ${lines.length} lines; these are lines ${startLine}-${endLine}. Use offset/limit to read more.]`;
  }
  return {
    content,
    data: {
      path: filePath,
      content,
      isEmpty: text.length === 0,
      exceededLimit: endLine < lines.length,
      totalLines: lines.length,
      // Counted in the rendering the model reads, as totalLines is; fileSize is the file's.
      totalChars: whole.length,
      fileSize,
      startLine,
      endLine,
      type: "notebook",
      language,
      cells: cells.map(({ rendered: _, ...cell }) => cell),
    },
  };
}

function renderOutput(output: NotebookOutput): string {
  switch (output.output_type) {
    case "stream":
      return clip(sourceText(output.text).replace(/\n$/, ""));
    case "error": {
      const trace = (output.traceback ?? []).join("\n");
      return clip(withoutColours(trace || `${output.ename ?? "Error"}: ${output.evalue ?? ""}`));
    }
    case "execute_result":
    case "display_data": {
      const data = output.data ?? {};
      const parts: string[] = [];
      const plain = data["text/plain"] as string | string[] | undefined;
      if (plain !== undefined) parts.push(clip(sourceText(plain)));
      for (const [type, value] of Object.entries(data)) {
        if (type === "text/plain") continue;
        const size =
          typeof value === "string" || Array.isArray(value)
            ? sourceText(value as string | string[]).length
            : JSON.stringify(value).length;
        parts.push(`[${type} output (${size} characters) not shown]`);
      }
      return parts.join("\n");
    }
    default:
      return "";
  }
}

function clip(text: string): string {
  if (text.length <= OUTPUT_CHARS) return text;
  const half = OUTPUT_CHARS / 2;
  return `${text.slice(0, half)}\n[... ${text.length - OUTPUT_CHARS} characters of output cut ...]\n${text.slice(-half)}`;
}

/** Tracebacks carry ANSI colour codes (IPython's); the model reads them as noise. */
function withoutColours(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}
