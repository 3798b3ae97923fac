import type { SessionMode } from "@agentclientprotocol/sdk";
import type { SessionPermissionMode as PermissionMode } from "../permissions/types.js";

/** The permission modes a client can switch a session to (`session/set_mode`), as ACP session modes. */
export const SESSION_MODES: (SessionMode & { id: PermissionMode })[] = [
  {
    id: "default",
    name: "Default",
    description:
      "Reads and read-only commands in the workspace run; edits, other commands and the network ask first.",
  },
  {
    id: "acceptEdits",
    name: "Accept edits",
    description: "File edits in the workspace run without asking too.",
  },
  {
    id: "plan",
    name: "Plan",
    description: "Read-only: reads and read-only commands run; edits and other commands are refused.",
  },
  {
    id: "bypassPermissions",
    name: "Bypass permissions",
    description: "Everything runs without asking (deny rules and protected paths still apply).",
  },
];

/** The permission mode a mode id names, or undefined for an id that is not one of SESSION_MODES. */
export function sessionMode(id: string): PermissionMode | undefined {
  return SESSION_MODES.find((mode) => mode.id === id)?.id;
}
