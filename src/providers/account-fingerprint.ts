import type * as Crypto from "node:crypto";
import { lazyRequire } from "../util/lazy-require.js";

// node:crypto is loaded on the first call: print mode, which never asks, does not load it at start.
const require = lazyRequire(import.meta.url);

/**
 * Who a provider's requests count against, for limits shared by many processes (`cairn worker`,
 * docs/serve.md "Rate limits and fairness"): the same key at the same endpoint is one account. A
 * fingerprint, never the key: it is stored in the database the workers share.
 */
export function accountFingerprint(baseURL: string, apiKey: string | undefined): string {
  const { createHash } = require("node:crypto") as typeof Crypto;
  return createHash("sha256")
    .update(`${baseURL}\n${apiKey ?? ""}`)
    .digest("hex")
    .slice(0, 16);
}
