/**
 * A Node module hook (`module.register`) that resolves the specifier `@anthropic-ai/claude-agent-sdk`
 * to another module: the `target` URL given at registration (cairn's built package). With it, a
 * program written for the official agent SDK (Zed's adapter, as npm ships it) runs on cairn's
 * in-process `query()` without a single change to its files: the package alias a user would set up
 * (`"@anthropic-ai/claude-agent-sdk": "npm:cairn"`), without touching node_modules.
 */
let target;

export function initialize(data) {
  target = data.target;
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === "@anthropic-ai/claude-agent-sdk") return { url: target, shortCircuit: true };
  return nextResolve(specifier, context);
}
