import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { REPO } from "../conformance/pm/helpers.js";

/** Debian's Chromium (.ci/run installs it); the browser tests skip, saying so, where it is absent. */
export const CHROMIUM = "/usr/bin/chromium";
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const BROWSER_SUITE = HAS_CHROMIUM
  ? "the session report in a browser"
  : `the session report in a browser (skipped: no Chromium at ${CHROMIUM}; .ci/run installs Debian's chromium)`;

/** Screenshots the tests keep, for a person to look at (gitignored). */
export const SHOTS = join(REPO, ".tmp/test-output/report");

export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}

export type OpenedReport = {
  page: Page;
  /** Console errors and uncaught exceptions of the page. */
  errors: string[];
  /** Every request that was not for the report file itself (none is allowed). */
  requests: string[];
  close(): Promise<void>;
};

/** Opens a report file in a fresh page that refuses (and records) any request but the file's own. */
export async function openReport(
  browser: Browser,
  file: string,
  options: { colorScheme?: "light" | "dark" } = {},
): Promise<OpenedReport> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    colorScheme: options.colorScheme ?? "light",
  });
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  const url = `file://${file}`;
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("request", (request) => {
    if (request.url() !== url) requests.push(request.url());
  });
  await context.route("**/*", (route) =>
    route.request().url() === url ? route.continue() : route.abort("blockedbyclient"),
  );
  await page.goto(url, { waitUntil: "load" });
  return { page, errors, requests, close: () => context.close() };
}
