import { spawnSync } from "node:child_process";
import path from "node:path";
import type { Pool } from "pg";
import { migrate, openPool } from "../../src/durable/database.js";
import { loadPg } from "../../src/durable/libraries.js";
import { PgTranscriptStore } from "../../src/durable/pg-transcript-store.js";
import { findPostgresBinaries, startThrowawayPostgres, type ThrowawayPostgres } from "./postgres.js";

/**
 * PostgreSQL transcript stores for the store conformance suite: one throwaway cluster, and a
 * database of its own for each store (copied from a migrated template), so each test sees only its
 * own sessions.
 */
export function pgTranscriptStores() {
  let pg: ThrowawayPostgres | undefined;
  const pools: Pool[] = [];
  const psql = (query: string) => {
    const found = findPostgresBinaries();
    if ("missing" in found || !pg) throw new Error("no PostgreSQL");
    const result = spawnSync(path.join(found.bin, "psql"), [pg.url, "-AtXc", query], { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`psql: ${result.stderr}`);
  };
  return {
    async start() {
      pg = await startThrowawayPostgres();
      psql("CREATE DATABASE store_template");
      const pool = await openPool(pg.url.replace(/\/postgres$/, "/store_template"), 1);
      await migrate(pool);
      await pool.end();
    },
    make(base: string): PgTranscriptStore {
      const name = `store_${Math.random().toString(36).slice(2, 10)}`;
      psql(`CREATE DATABASE ${name} TEMPLATE store_template`);
      const pool = new (loadPg().Pool)({
        connectionString: pg!.url.replace(/\/postgres$/, `/${name}`),
        max: 4,
      });
      pools.push(pool);
      return new PgTranscriptStore(pool, path.join(base, "cache"));
    },
    async stop() {
      for (const pool of pools.splice(0)) await pool.end();
      await pg?.stop();
    },
  };
}
