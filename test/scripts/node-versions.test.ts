import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, test } from "vitest";
import { REPO } from "../conformance/pm/helpers.js";

type LockEntry = { version?: string; dev?: boolean; engines?: { node?: string } };

/**
 * cairn runs on Node 20, 22 and 24 (package.json `engines`). A package it installs for its users
 * that declares a narrower Node range makes `npm install` warn (EBADENGINE) on a supported version,
 * or fail under `engine-strict`; such a package is pinned at a version that still allows them.
 */
describe("supported Node versions", () => {
  const lock = JSON.parse(readFileSync(`${REPO}/package-lock.json`, "utf8")) as {
    packages: Record<string, LockEntry>;
  };
  const own = JSON.parse(readFileSync(`${REPO}/package.json`, "utf8")) as { engines: { node: string } };

  test("package.json's engines admit Node 20, 22 and 24", () => {
    for (const version of ["20.0.0", "22.0.0", "24.0.0"])
      expect(semver.satisfies(version, own.engines.node), version).toBe(true);
  });

  test("no package installed with cairn (not a devDependency) asks for a newer Node than 20", () => {
    const narrower = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== "" && !entry.dev && entry.engines?.node)
      .filter(([, entry]) => !semver.satisfies("20.19.0", entry.engines!.node!))
      .map(
        ([path, entry]) =>
          `${path.replace(/^.*node_modules\//, "")}@${entry.version} (node ${entry.engines!.node})`,
      );
    expect(narrower).toEqual([]);
  });
});
