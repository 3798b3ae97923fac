/** Provider credentials that must never reach a child process, whatever their names look like. */
const KNOWN_SECRET_NAMES = new Set([
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "OPENAI_ORG_ID",
  "OPENROUTER_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "AZURE_OPENAI_API_KEY",
  "MISTRAL_API_KEY",
  "GROQ_API_KEY",
  "DEEPSEEK_API_KEY",
  "XAI_API_KEY",
  "TOGETHER_API_KEY",
  "FIREWORKS_API_KEY",
  "COHERE_API_KEY",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "HF_TOKEN",
  "GITHUB_TOKEN",
  "GH_TOKEN",
]);

/** Names that look like they hold a credential. Deliberately broad: a missing variable is a small cost. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD/i;

/**
 * A copy of `env` without variables that look like secrets, so commands the model runs cannot read
 * (and print, or send elsewhere) the agent's own credentials. Names in `allowlist` are kept anyway.
 */
export function childEnvironment(env: NodeJS.ProcessEnv, allowlist: string[] = []): NodeJS.ProcessEnv {
  const keep = new Set(allowlist);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (!keep.has(name) && (KNOWN_SECRET_NAMES.has(name) || SECRET_NAME.test(name))) continue;
    out[name] = value;
  }
  return out;
}
