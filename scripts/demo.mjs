// `npm run demo`: runs the built CLI headless on a temporary copy of examples/demo/workspace with the
// offline replay model (scripted model turns, no network, no key) and prints its stream-json events.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const workspace = mkdtempSync(join(tmpdir(), "cairn-demo-"));
cpSync(join(root, "examples/demo/workspace"), workspace, { recursive: true });

const args = [
  join(root, "dist/cli/main.js"),
  "-p",
  "Read README.md and create a summary in summary.txt",
  "--output-format",
  "stream-json",
  "--model",
  `replay:${join(root, "examples/demo/scenario.json")}`,
  "--workspace",
  workspace,
];
process.stderr.write(`cairn demo: replaying a scripted model (no network) in ${workspace}\n\n`);
// The demo's transcript goes to a throw-away CAIRN_HOME, not the newcomer's ~/.cairn.
const env = {
  ...process.env,
  CAIRN_HOME: process.env.CAIRN_HOME ?? mkdtempSync(join(tmpdir(), "cairn-demo-home-")),
};
const run = spawnSync(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"], env });
if (run.status !== 0) {
  process.stderr.write(`\ncairn demo: the run failed (exit ${run.status})\n`);
  process.exit(run.status ?? 1);
}
const summary = join(workspace, "summary.txt");
if (!existsSync(summary)) {
  process.stderr.write("\ncairn demo: summary.txt was not written\n");
  process.exit(1);
}
process.stderr.write(`\ncairn demo: ${summary} now holds:\n${readFileSync(summary, "utf8")}`);
