import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply, type StepInput } from "../../src/testing/index.js";
import { runCli } from "../conformance/pm/helpers.js";

/**
 * NotebookEdit and Read of Jupyter notebooks through the built CLI against the scripted model: what
 * the model is sent, and the notebook file after the edits (valid JSON, metadata and nbformat kept).
 */

const METADATA = {
  kernelspec: { display_name: "Python 3", language: "python", name: "python3" },
  language_info: { name: "python", version: "3.12.1" },
  custom: { keep: ["me", 1] },
};

/** nbformat 4.5: cells have ids. One code cell with a stream, a result with an image, and an error. */
const NOTEBOOK = {
  cells: [
    { cell_type: "markdown", id: "intro", metadata: {}, source: ["# Title\n", "Some text"] },
    {
      cell_type: "code",
      id: "load",
      execution_count: 3,
      metadata: { tags: ["setup"] },
      outputs: [
        { output_type: "stream", name: "stdout", text: ["loaded 42 rows\n"] },
        {
          output_type: "execute_result",
          execution_count: 3,
          data: { "text/plain": ["<Figure>"], "image/png": "iVBORw0KGgo=" },
          metadata: {},
        },
      ],
      source: ["import pandas as pd\n", "df = pd.read_csv('x.csv')"],
    },
    {
      cell_type: "code",
      id: "boom",
      execution_count: 4,
      metadata: {},
      outputs: [
        {
          output_type: "error",
          ename: "ZeroDivisionError",
          evalue: "division by zero",
          traceback: ["\u001b[0;31mZeroDivisionError\u001b[0m: division by zero"],
        },
      ],
      source: "1/0",
    },
  ],
  metadata: METADATA,
  nbformat: 4,
  nbformat_minor: 5,
};

/** The notebook as Jupyter writes it (one-space indentation, final newline). */
const NOTEBOOK_TEXT = `${JSON.stringify(NOTEBOOK, null, 1)}\n`;

/** The tool results the model was sent, by tool_use id. */
function toolResults(requests: readonly { body: unknown }[]): Map<string, string> {
  const results = new Map<string, string>();
  for (const request of requests) {
    const messages = (request.body as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [];
    for (const message of messages) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as { type?: string; tool_use_id?: string; content?: unknown }[]) {
        if (block.type === "tool_result" && block.tool_use_id)
          results.set(
            block.tool_use_id,
            typeof block.content === "string" ? block.content : JSON.stringify(block.content),
          );
      }
    }
  }
  return results;
}

async function run(steps: StepInput[], files: Record<string, string>, args: string[] = []) {
  const cli = await runCli({ steps: [...steps, reply().text("Done.")], files, args });
  expect(cli.stderr).toBe("");
  expect(cli.code).toBe(0);
  return { ...cli, results: toolResults(cli.server.requests) };
}

describe("notebooks", () => {
  test("Read shows a notebook as its cells, with their ids, types and text outputs", async () => {
    const { results } = await run([reply().tool("Read", { file_path: "analysis.ipynb" }, "toolu_read")], {
      "analysis.ipynb": NOTEBOOK_TEXT,
    });
    const shown = results.get("toolu_read")!;
    expect(shown).toBe(
      [
        '<cell id="intro"><cell_type>markdown</cell_type># Title\nSome text</cell id="intro">',
        '<cell id="load">import pandas as pd\ndf = pd.read_csv(\'x.csv\')</cell id="load">',
        "<output>\nloaded 42 rows\n</output>",
        "<output>\n<Figure>\n[image/png output (12 characters) not shown]\n</output>",
        '<cell id="boom">1/0</cell id="boom">',
        "<output>\nZeroDivisionError: division by zero\n</output>",
      ].join("\n"),
    );
  });

  test("NotebookEdit replaces, inserts and deletes cells, keeping valid JSON, metadata and nbformat (an edit acceptEdits allows)", async () => {
    const { results, dir } = await run(
      [
        reply().tool(
          "NotebookEdit",
          { notebook_path: "analysis.ipynb", cell_id: "load", new_source: "x = 1\ny = 2" },
          "toolu_replace",
        ),
        reply().tool(
          "NotebookEdit",
          {
            notebook_path: "analysis.ipynb",
            cell_id: "load",
            new_source: "## Notes",
            cell_type: "markdown",
            edit_mode: "insert",
          },
          "toolu_insert",
        ),
        reply().tool(
          "NotebookEdit",
          {
            notebook_path: "analysis.ipynb",
            new_source: "import os",
            cell_type: "code",
            edit_mode: "insert",
          },
          "toolu_top",
        ),
        reply().tool(
          "NotebookEdit",
          { notebook_path: "analysis.ipynb", cell_id: "boom", new_source: "", edit_mode: "delete" },
          "toolu_delete",
        ),
        reply().tool(
          "NotebookEdit",
          { notebook_path: "analysis.ipynb", cell_id: "nope", new_source: "z" },
          "toolu_missing",
        ),
      ],
      { "analysis.ipynb": NOTEBOOK_TEXT },
      ["--permission-mode", "acceptEdits"],
    );
    expect(results.get("toolu_replace")).toMatch(/^Updated cell load in /);
    expect(results.get("toolu_insert")).toMatch(/^Inserted markdown cell [0-9a-f]{8} at position 3 in /);
    expect(results.get("toolu_top")).toMatch(/^Inserted code cell [0-9a-f]{8} at position 1 in /);
    expect(results.get("toolu_delete")).toMatch(/^Deleted cell boom in /);
    expect(results.get("toolu_missing")).toContain("Cell nope was not found");

    const text = readFileSync(join(dir, "analysis.ipynb"), "utf8");
    const notebook = JSON.parse(text);
    // Jupyter's own layout is kept: one-space indentation, a final newline.
    expect(text.startsWith('{\n "cells": [')).toBe(true);
    expect(text.endsWith("}\n")).toBe(true);
    expect(notebook.metadata).toEqual(METADATA);
    expect([notebook.nbformat, notebook.nbformat_minor]).toEqual([4, 5]);
    expect(notebook.cells.map((cell: { cell_type: string }) => cell.cell_type)).toEqual([
      "code",
      "markdown",
      "code",
      "markdown",
    ]);
    const [top, intro, load, notes] = notebook.cells;
    expect(top).toMatchObject({ source: ["import os"], outputs: [], execution_count: null, metadata: {} });
    expect(intro).toEqual(NOTEBOOK.cells[0]);
    // The replaced code cell: new source as Jupyter's list of lines, its old outputs gone, its metadata kept.
    expect(load).toEqual({
      cell_type: "code",
      id: "load",
      execution_count: null,
      metadata: { tags: ["setup"] },
      outputs: [],
      source: ["x = 1\n", "y = 2"],
    });
    expect(notes).toEqual({
      cell_type: "markdown",
      id: expect.stringMatching(/^[0-9a-f]{8}$/),
      metadata: {},
      source: ["## Notes"],
    });
  });

  test("cells of a notebook written before cells had ids are named cell-<index>; new cells get no id", async () => {
    const old = { ...NOTEBOOK, nbformat_minor: 4, cells: NOTEBOOK.cells.map(({ id: _, ...cell }) => cell) };
    const { results, dir } = await run(
      [
        reply().tool("Read", { file_path: "old.ipynb" }, "toolu_read"),
        reply().tool(
          "NotebookEdit",
          { notebook_path: "old.ipynb", cell_id: "cell-2", new_source: "2/1" },
          "toolu_replace",
        ),
        reply().tool(
          "NotebookEdit",
          {
            notebook_path: "old.ipynb",
            cell_id: "cell-0",
            new_source: "more",
            cell_type: "markdown",
            edit_mode: "insert",
          },
          "toolu_insert",
        ),
      ],
      { "old.ipynb": `${JSON.stringify(old, null, 2)}\n` },
      ["--force"],
    );
    expect(results.get("toolu_read")).toContain('<cell id="cell-2">1/0</cell id="cell-2">');
    const text = readFileSync(join(dir, "old.ipynb"), "utf8");
    expect(text.startsWith('{\n  "cells"')).toBe(true); // its two-space indentation is kept
    const notebook = JSON.parse(text);
    expect(notebook.cells[3].source).toEqual(["2/1"]);
    expect(notebook.cells[1]).toEqual({ cell_type: "markdown", metadata: {}, source: ["more"] });
    expect(notebook.nbformat_minor).toBe(4);
  });

  test("permission rules and modes treat NotebookEdit as an edit: an Edit deny rule and plan mode refuse it", async () => {
    const edit = reply().tool(
      "NotebookEdit",
      { notebook_path: "analysis.ipynb", cell_id: "load", new_source: "x" },
      "toolu_e",
    );
    const denied = await run([edit], { "analysis.ipynb": NOTEBOOK_TEXT }, ["--disallowedTools", "Edit"]);
    expect(denied.results.get("toolu_e")).toMatch(/denied/i);
    expect(readFileSync(join(denied.dir, "analysis.ipynb"), "utf8")).toBe(NOTEBOOK_TEXT);
    const plan = await run([edit], { "analysis.ipynb": NOTEBOOK_TEXT }, ["--permission-mode", "plan"]);
    expect(plan.results.get("toolu_e")).toMatch(/plan mode/i);
    expect(readFileSync(join(plan.dir, "analysis.ipynb"), "utf8")).toBe(NOTEBOOK_TEXT);
  });
});
