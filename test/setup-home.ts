import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Transcripts and config of every test go to a throw-away $CAIRN_HOME, never the user's ~/.cairn.
process.env.CAIRN_HOME = mkdtempSync(join(tmpdir(), "cairn-home-"));
