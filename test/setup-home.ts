import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Transcripts and config of every test go to a throw-away $CAIRN_HOME, never the user's ~/.cairn;
// the other agents' user files (read for their permission rules) are looked up there too, never in
// the developer's own ~/.claude or ~/.cursor.
const home = mkdtempSync(join(tmpdir(), "cairn-home-"));
process.env.CAIRN_HOME = home;
process.env.CLAUDE_CONFIG_DIR = join(home, "claude");
process.env.CURSOR_CONFIG_DIR = join(home, "cursor");
