// Makes the CLI entry executable after tsc (npm links it as the `cairn` bin).
import { chmodSync } from "node:fs";

chmodSync(new URL("../dist/cli/main.js", import.meta.url), 0o755);
