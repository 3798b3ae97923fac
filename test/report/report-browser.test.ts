import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { writeBigSession } from "../../bench/lib/big-session.mjs";
import { hang, httpError, reply, type StepInput } from "../../src/testing/index.js";
import { cleanEnv, MODEL, serverEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";
import { tempDir } from "../helpers/temp.js";
import { BROWSER_SUITE, HAS_CHROMIUM, launchBrowser, openReport, SHOTS } from "./helpers.js";

/**
 * The report as a person sees it: sessions made by the built CLI against the scripted model
 * server, `cairn report` (or print mode's --report) writing the page, the page opened from disk in
 * headless Chromium that may load nothing else. One browser for the file.
 */
let browser: Browser;

beforeAll(async () => {
  if (HAS_CHROMIUM) browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const APP = "function add(a, b) {\n  return a - b;\n}\nmodule.exports = add;\n";

/** Runs the CLI in `dir` (the session store is the test's CAIRN_HOME); returns its output. */
async function cli(args: string[], dir: string, env: NodeJS.ProcessEnv, timeoutMs = 30_000) {
  const run = spawnCli(args, { cwd: dir, env, timeoutMs });
  const { code } = await run.exited;
  return { code, ...run.out };
}

/** A session made by `steps`: its id, workspace and environment. */
async function session(steps: StepInput[], files: Record<string, string>, args: string[] = []) {
  const server = await startServer(steps);
  const dir = workspace(files);
  const env = serverEnv(server);
  const run = await cli(
    ["-p", "Fix the add function", "--model", MODEL, "--output-format", "json", ...args],
    dir,
    env,
  );
  const id = String(JSON.parse(run.stdout).session_id);
  return { id, dir, env, server, run };
}

async function report(id: string, dir: string, env: NodeJS.ProcessEnv, extra: string[] = []) {
  const out = join(tempDir("cairn-report-"), "report.html");
  const run = await cli(["report", id, "-o", out, ...extra], dir, env);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("");
  return out;
}

/** Tools, a diff, a command that fails, a denied command and a retried model call. */
function toolSteps(): StepInput[] {
  return [
    reply().text("Let me look at app.js.").tool("Read", { file_path: "app.js" }),
    httpError(529),
    reply().tool("Edit", {
      file_path: "app.js",
      old_string: "  return a - b;",
      new_string: "  return a + b;",
    }),
    reply().tool("Bash", { command: "sh -c 'echo building the app; echo warning: flaky >&2; exit 3'" }),
    reply().tool("Bash", { command: "rm -rf build" }),
    reply().text("Fixed add: it subtracted instead of adding."),
  ];
}

describe.skipIf(!HAS_CHROMIUM)(BROWSER_SUITE, () => {
  test("a session with tools: prompt, answer, the edit's diff lines, the failing command's exit status and output (expanded), the denial, the retry and the totals; no console error, no request", async () => {
    const { id, dir, env, run } = await session(toolSteps(), { "app.js": APP }, [
      "--allowedTools",
      "Bash(sh:*)",
    ]);
    expect(run.code).toBe(0);
    const file = await report(id, dir, env);
    const { page, errors, requests, close } = await openReport(browser, file);

    await expect.poll(() => page.locator("#prompt").textContent()).toBe("Fix the add function");
    expect(await page.locator("#answer").textContent()).toBe("Fixed add: it subtracted instead of adding.");
    expect(await page.locator('[data-stat="turns"] .stat-value').textContent()).toBe("5");
    expect(await page.locator('[data-stat="calls"] .stat-value').textContent()).toBe("4");
    expect(await page.locator('[data-stat="denials"] .stat-value').textContent()).toBe("1");
    expect(await page.locator('[data-stat="retries"] .stat-value').textContent()).toBe("1");
    // Tokens per model, as a table and a chart.
    expect(await page.locator("#models tbody tr").count()).toBe(1);
    expect(await page.locator("svg.usage-chart rect.chart-input").count()).toBeGreaterThan(0);

    const turns = page.locator("details.turn");
    expect(await turns.count()).toBe(5);
    // The retried call: the failed attempt is said in its turn.
    await turns.nth(1).locator("summary").first().click();
    await expect.poll(() => turns.nth(1).textContent()).toContain("HTTP 529");
    // The edit as a diff: the removed and the added line.
    await turns.nth(1).locator("details.call > summary").first().click();
    const diff = turns.nth(1).locator(".diff");
    expect(await diff.locator("tr.del").allTextContents()).toEqual(["-  return a - b;"]);
    expect(await diff.locator("tr.add").allTextContents()).toEqual(["+  return a + b;"]);
    // Side by side: the two lines face each other.
    await page.locator("#side-by-side").check();
    expect(await diff.locator("table.split td.del").allTextContents()).toEqual(["  return a - b;"]);
    expect(await diff.locator("table.split td.add").allTextContents()).toEqual(["  return a + b;"]);

    // The command: its exit status, and its output collapsed until opened.
    const bashTurn = turns.nth(2);
    await bashTurn.locator("summary").first().click();
    const bash = bashTurn.locator("details.call");
    expect(await bash.locator("summary").first().textContent()).toContain("exit 3");
    await bash.locator("summary").first().click();
    const output = bash.locator("details.output");
    expect(await output.getAttribute("open")).toBeNull();
    await output.locator("summary").click();
    expect(await output.locator("pre").textContent()).toBe("building the app\nwarning: flaky\nExit code 3");

    // The denied command.
    const denied = turns.nth(3);
    expect(await denied.locator("summary").first().textContent()).toContain("Bash");
    await denied.locator("summary").first().click();
    expect(await denied.locator(".decision-denied").textContent()).toBe("denied");

    // Filter: only the denied call's turn; search: only the turn that mentions "flaky".
    await page.locator("#filter").selectOption("denied");
    expect(await page.locator("details.turn").count()).toBe(1);
    expect(await page.locator("#match-count").textContent()).toBe("1 of 5 items match");
    await page.locator("#filter").selectOption("all");
    await page.locator("#search").fill("flaky");
    await expect.poll(() => page.locator("#match-count").textContent()).toBe("1 of 5 items match");
    expect(await page.locator("details.turn .chip").first().textContent()).toBe("Bash");
    await page.locator("#search").fill("");
    await expect.poll(() => page.locator("details.turn").count()).toBe(5);

    // Themes: the system's light, then the toggle's dark (the page's background changes).
    const background = () => page.evaluate<string>("getComputedStyle(document.body).backgroundColor");
    expect(await background()).toBe("rgb(255, 255, 255)");
    await page.locator("#theme-toggle").click();
    expect(await page.locator("#theme-toggle").textContent()).toBe("Theme: dark");
    expect(await background()).toBe("rgb(13, 17, 23)");
    await page.screenshot({ path: join(SHOTS, "tools-dark.png"), fullPage: true });
    await page.locator("#theme-toggle").click();
    expect(await background()).toBe("rgb(255, 255, 255)");
    await page.screenshot({ path: join(SHOTS, "tools-light.png"), fullPage: true });

    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await close();
  }, 90_000);

  test("the system's dark theme is the page's until the toggle says otherwise", async () => {
    const { id, dir, env } = await session([reply().text("Nothing to fix.")], { "app.js": APP });
    const file = await report(id, dir, env);
    const { page, errors, close } = await openReport(browser, file, { colorScheme: "dark" });
    expect(await page.evaluate<string>("getComputedStyle(document.body).backgroundColor")).toBe(
      "rgb(13, 17, 23)",
    );
    expect(await page.locator("#answer").textContent()).toBe("Nothing to fix.");
    expect(errors).toEqual([]);
    await close();
  }, 60_000);

  test("a subagent is nested under its Agent call; a compaction and a failed run are shown where they happened", async () => {
    const files = {
      "app.js": APP,
      ".cairn/agents/checker.md":
        "---\nname: checker\ndescription: Checks code.\ntools: Read\n---\nYou are the CHECKER.\n",
    };
    const { id, dir, env, run } = await session(
      [
        reply().tool("Agent", {
          description: "Check app.js",
          prompt: "Is add right?",
          subagent_type: "checker",
        }),
        reply().tool("Read", { file_path: "app.js" }),
        reply().text("add subtracts: it is wrong."),
        reply().text("The checker says add is wrong."),
        reply().text("Summary: the checker found that add subtracts."),
        httpError(400, { message: "prompt is malformed" }),
      ],
      files,
    );
    expect(run.code).toBe(0);
    expect((await cli(["-p", "/compact", "--resume", id, "--model", MODEL], dir, env)).code).toBe(0);
    expect((await cli(["-p", "Go on", "--resume", id, "--model", MODEL], dir, env)).code).toBe(1);
    const file = await report(id, dir, env);
    const { page, errors, requests, close } = await openReport(browser, file);

    expect(await page.locator('[data-stat="subagents"] .stat-value').textContent()).toBe("1");
    expect(await page.locator('[data-stat="compactions"] .stat-value').textContent()).toBe("1");
    const agentTurn = page.locator("#timeline > .run").first().locator("details.turn").first();
    await agentTurn.locator("summary").first().click();
    const agentCall = agentTurn.locator("details.call").first();
    await agentCall.locator("summary").first().click();
    const nested = agentCall.locator(".subagent");
    expect(await nested.locator(".label").first().textContent()).toBe("subagent checker: Check app.js");
    expect(await nested.locator(".run-prompt").textContent()).toBe("Is add right?");
    const innerTurns = nested.locator("details.turn");
    expect(await innerTurns.count()).toBe(2);
    await innerTurns.nth(0).locator("summary").first().click();
    expect(await innerTurns.nth(0).locator(".call-name").textContent()).toBe("Read");
    expect(await agentCall.locator("pre").filter({ hasText: "add subtracts" }).count()).toBeGreaterThan(0);

    const compaction = page.locator("details.compaction");
    expect(await compaction.locator("summary").textContent()).toMatch(
      /^Compacted \(manual\): [\d,]+ → [\d,]+ tokens/,
    );
    await compaction.locator("summary").click();
    expect(await compaction.locator("pre").textContent()).toBe(
      "Summary: the checker found that add subtracts.",
    );
    const failed = page.locator("#timeline > .run").nth(2);
    expect(await failed.locator(".run-end").textContent()).toContain("Run ended: error_during_execution");
    expect(await failed.locator(".error-text").first().textContent()).toContain("prompt is malformed");
    await page.locator("#filter").selectOption("errors");
    expect(await page.locator("#match-count").textContent()).toMatch(/^\d+ of \d+ items match$/);
    await page.locator("#filter").selectOption("compaction");
    expect(await page.locator("details.compaction").count()).toBe(1);
    expect(await page.locator("details.turn").count()).toBe(0);
    await page.locator("#filter").selectOption("all");
    await page.screenshot({ path: join(SHOTS, "subagent-compaction.png"), fullPage: true });
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await close();
  }, 90_000);

  test("--redact leaves out file contents and command output but keeps what was done", async () => {
    const { id, dir, env } = await session(toolSteps(), { "app.js": APP }, ["--allowedTools", "Bash(sh:*)"]);
    const file = await report(id, dir, env, ["--redact"]);
    const html = readFileSync(file, "utf8");
    expect(html).not.toContain("return a - b");
    expect(html).not.toContain("return a + b");
    expect(html).not.toContain("Exit code 3"); // the command's output (the command itself stays)
    const { page, errors, close } = await openReport(browser, file);
    const bashTurn = page.locator("details.turn").nth(2);
    await bashTurn.locator("summary").first().click();
    const call = bashTurn.locator("details.call").first();
    await call.locator("summary").first().click();
    // The command and its exit status stay; its output does not.
    expect(await call.locator("pre.command").textContent()).toContain("echo building the app");
    await call.locator("details.output > summary").click();
    expect(await call.locator("details.output .cut").textContent()).toMatch(
      /^left out \(--redact\): \d+ characters$/,
    );
    expect(await page.locator(".notes").textContent()).toContain(
      "File contents and command output were left out (--redact).",
    );
    expect(errors).toEqual([]);
    await close();
  }, 90_000);

  test("print mode's --report writes the report when the run fails, and when it is interrupted", async () => {
    const server = await startServer([
      reply().tool("Read", { file_path: "app.js" }),
      httpError(400, { message: "bad request body" }),
    ]);
    const dir = workspace({ "app.js": APP });
    const out = join(tempDir("cairn-report-"), "failed.html");
    const failed = await cli(["-p", "Fix it", "--model", MODEL, "--report", out], dir, serverEnv(server));
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe("");
    expect(existsSync(out)).toBe(true);
    let opened = await openReport(browser, out);
    expect(await opened.page.locator(".error-text").first().textContent()).toContain("bad request body");
    expect(opened.errors).toEqual([]);
    await opened.close();

    const stalled = await startServer([
      reply().text("Working on it.").tool("Read", { file_path: "app.js" }),
      hang(),
    ]);
    const interruptedOut = join(tempDir("cairn-report-"), "interrupted.html");
    const run = spawnCli(["-p", "Fix it", "--model", MODEL, "--report", interruptedOut], {
      cwd: dir,
      env: serverEnv(stalled),
    });
    await expect.poll(() => stalled.requests.length, { timeout: 20_000 }).toBe(2);
    run.child.kill("SIGINT");
    expect((await run.exited).code).toBe(130);
    opened = await openReport(browser, interruptedOut);
    expect(await opened.page.locator(".run-end").textContent()).toContain("(interrupted)");
    expect(await opened.page.locator("details.turn").count()).toBe(1);
    expect(opened.errors).toEqual([]);
    await opened.close();
  }, 90_000);

  test("a big session (10,000 events, 50 MB of tool output) gives a report within its stated output budget that opens with its first page of turns", async () => {
    const dir = tempDir("cairn-big-");
    const transcript = join(dir, "big.jsonl");
    const made = await writeBigSession(transcript);
    expect(made.events).toBeGreaterThanOrEqual(10_000);
    expect(made.outputBytes).toBeGreaterThanOrEqual(50_000_000);
    const out = join(dir, "big.html");
    const run = await cli(["report", transcript, "-o", out], dir, cleanEnv(), 120_000);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    // The output is cut to fit the report's budget, so the page is a fraction of the transcript.
    expect(statSync(out).size).toBeLessThan(statSync(transcript).size / 4);
    const { page, errors, requests, close } = await openReport(browser, out);
    expect(await page.locator('[data-stat="turns"] .stat-value').textContent()).toBe("5001");
    expect(await page.locator('[data-stat="calls"] .stat-value').textContent()).toBe("5000");
    // The page says what it cut each result to, and a result's cut says the same.
    const notes = String(await page.locator(".notes").textContent());
    const stated = /each tool result is cut to ([\d,]+) characters/.exec(notes)?.[1];
    expect(stated).toBeDefined();
    // Only the first page of rows is built; the rest on request.
    expect(await page.locator("details.turn").count()).toBe(200);
    expect(await page.locator("button.show-more").textContent()).toBe("Show 200 more (4801 left)");
    await page.locator("button.show-more").click();
    expect(await page.locator("details.turn").count()).toBe(400);
    const first = page.locator("details.turn").first();
    await first.locator("summary").first().click();
    await first.locator("details.call > summary").first().click();
    await first.locator("details.output > summary").click();
    // (The generator's results are 11,200 characters and a marker line.)
    expect(await first.locator("details.output .cut").textContent()).toMatch(
      new RegExp(`^cut to ${stated} of 11,2\\d\\d characters$`),
    );
    expect(await first.locator("details.output pre").textContent()).toContain(
      `characters cut (the report keeps ${stated} of this text)`,
    );
    // Search reaches every turn, not only the rows built.
    await page.locator("#search").fill("marker-4999");
    await expect.poll(() => page.locator("#match-count").textContent()).toBe("1 of 5001 items match");
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await close();
  }, 180_000);
});
