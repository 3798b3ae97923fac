import { describe, expect, it } from "vitest";
import { CAIRN_CONFIG_KEYS } from "../../src/config/index.js";
import { cairnConfigSchema } from "../../src/config/schema.js";

// CAIRN_CONFIG_KEYS is written out (no schema is built at start-up to list the keys); a key added to
// the schema but not to the list would be warned about as unknown while being applied.
describe("CAIRN_CONFIG_KEYS", () => {
  it("lists exactly the keys of the config schema, permissions' and telemetry's one level down, sandbox.network's two", () => {
    const { shape } = cairnConfigSchema();
    const telemetry = shape.telemetry.unwrap().shape;
    const permissions = shape.permissions.unwrap().shape;
    const network = shape.sandbox.unwrap().shape.network.unwrap().shape;
    const fromSchema = Object.keys(shape).flatMap((key) =>
      key === "permissions"
        ? Object.keys(permissions).map((sub) => `permissions.${sub}`)
        : key === "sandbox"
          ? Object.keys(network).map((sub) => `sandbox.network.${sub}`)
          : key === "telemetry"
            ? Object.keys(telemetry).map((sub) => `telemetry.${sub}`)
            : [key],
    );
    expect([...CAIRN_CONFIG_KEYS].sort()).toEqual(fromSchema.sort());
  });
});
