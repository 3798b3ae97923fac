/**
 * The Claude Code release whose agent-SDK CLI protocol cairn speaks: the CLI the pinned TypeScript
 * SDK (0.3.333) bundles, against which the protocol was recorded. The SDKs know their CLI by this
 * number, not by cairn's own version.
 */
export const AGENT_SDK_PROTOCOL_VERSION = "2.1.333";

/**
 * `-v` as the agent SDKs read it: the Python SDK runs `<cli_path> -v` before every query, takes the
 * leading `x.y.z` of its output, and warns when it is below its minimum (2.0.0 in 0.2.143:
 * claude_agent_sdk/_internal/transport/subprocess_cli.py, `_check_claude_version`). Claude Code
 * prints `2.1.333 (Claude Code)`; cairn names itself and its own version in the same place.
 */
export function agentSdkVersionLine(cairnVersion: string): string {
  return `${AGENT_SDK_PROTOCOL_VERSION} (agent-SDK CLI protocol; cairn ${cairnVersion})\n`;
}
