import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A throwaway PostgreSQL cluster for one test file, made from the machine's PostgreSQL binaries
 * (Debian's postgresql-15, which .ci/run installs): initdb in a temporary directory, a server on a
 * free port of 127.0.0.1, trust authentication, removed by `stop()`. PostgreSQL refuses to run as
 * root, so as root the cluster belongs to the `postgres` user the package creates.
 */
export type ThrowawayPostgres = {
  url: string;
  stop(): Promise<void>;
  /** Stops the server, keeping its data (a database outage); `restart()` starts it again. */
  halt(): void;
  restart(): void;
};

/** Where initdb and pg_ctl are, or why there are none (tests skip with that reason in their names). */
export function findPostgresBinaries(): { bin: string } | { missing: string } {
  const fromEnv = process.env.CAIRN_TEST_PG_BIN;
  if (fromEnv)
    return existsSync(join(fromEnv, "initdb")) ? { bin: fromEnv } : { missing: `no initdb in ${fromEnv}` };
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    return { missing: "PostgreSQL binaries are not installed (/usr/lib/postgresql/*/bin)" };
  if (process.getuid?.() === 0 && spawnSync("id", ["-u", "postgres"]).status !== 0)
    return { missing: "running as root and there is no postgres user to run PostgreSQL as" };
  return { bin: join(root, versions[0]!, "bin") };
}

export const postgresSkipReason = (): string | undefined => {
  const found = findPostgresBinaries();
  return "missing" in found ? found.missing : undefined;
};

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const found = findPostgresBinaries();
  if ("missing" in found) throw new Error(found.missing);
  const dir = mkdtempSync(join(tmpdir(), "cairn-pg-"));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (command: string, args: string[]) => {
    const full = join(found.bin, command);
    const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", full, ...args]] : [full, args];
    const result = spawnSync(file, argv, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
  run("initdb", ["-D", data, "-U", "cairn", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-o", options, "-w", "start"]);
  return {
    url: `postgresql://cairn@127.0.0.1:${port}/postgres`,
    halt() {
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
    },
    restart() {
      run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-o", options, "-w", "start"]);
    },
    async stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
