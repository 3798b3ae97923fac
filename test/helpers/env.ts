/**
 * The process environment without anything that could pick another model or provider, or leak a
 * real key: ANTHROPIC_*, *_API_KEY and CAIRN_* settings. CAIRN_HOME stays, so transcripts keep
 * going to the test's temp home (test/setup-home.ts), never the user's ~/.cairn.
 */
export function modelFreeEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith("ANTHROPIC_") || name.endsWith("_API_KEY")) continue;
    if (name.startsWith("CAIRN_") && name !== "CAIRN_HOME") continue;
    // The scripted server is on loopback; a CI proxy would only add cairn's "not used" note to stderr.
    if (/^(https?|all)_proxy$/i.test(name)) continue;
    env[name] = value;
  }
  return env;
}
