import { spawn } from "../util/spawn.js";

// Whether bubblewrap works here: installed is not enough, containers often forbid namespaces.
const probes = new Map<string, Promise<string | undefined>>();

/** Undefined when `bwrap` can create the sandbox's namespaces; else why not (bubblewrap's own words). */
export function probeBwrap(bwrapPath: string): Promise<string | undefined> {
  let probe = probes.get(bwrapPath);
  if (!probe) {
    probe = runProbe(bwrapPath);
    probes.set(bwrapPath, probe);
  }
  return probe;
}

function runProbe(bwrapPath: string): Promise<string | undefined> {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  args.push(
    "--cap-drop",
    "ALL",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
    "--die-with-parent",
    "--",
    "true",
  );
  return new Promise((resolve) => {
    let stderr = "";
    const child = spawn(bwrapPath, args, { stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", (error) => resolve(`${bwrapPath} cannot be started (${error.message})`));
    child.once("close", (code) =>
      resolve(code === 0 ? undefined : `${bwrapPath} fails here: ${stderr.trim() || `exit code ${code}`}`),
    );
  });
}
