/**
 * zod compiles a parser for each object schema with `new Function` on its first parse, which pays
 * off after many parses in a long-lived process; a CLI run parses each tool's input a few times, so
 * it interprets them instead (the CLI's process only; the SDK leaves zod as it is).
 *
 * A module of its own, imported by src/cli/start.ts, because `(await import("zod")).config(…)`
 * there made every export of zod reachable for the bundler, its 49 locales included (about 290 kB
 * of the CLI's bundle, read and deserialized at every start): a static namespace import whose one
 * member is named keeps the bundle to what cairn uses.
 */
import * as z from "zod";

z.config({ jitless: true });
