import { describe, expect, it } from "vitest";
import { childEnvironment } from "../../src/tools/child-env.js";

describe("childEnvironment", () => {
  it("drops variables that look like secrets and known provider keys", () => {
    const env = childEnvironment({
      PATH: "/usr/bin",
      HOME: "/home/me",
      ANTHROPIC_API_KEY: "sk-ant",
      OPENAI_API_KEY: "sk",
      FOO_API_KEY: "k",
      MY_SECRET: "s",
      github_token: "t",
      DB_PASSWORD: "p",
      AWS_SECRET_ACCESS_KEY: "a",
      SSH_AUTH_SOCK: "/tmp/agent",
    });
    expect(env).toEqual({ PATH: "/usr/bin", HOME: "/home/me", SSH_AUTH_SOCK: "/tmp/agent" });
  });

  it("keeps allowlisted names and does not touch its input", () => {
    const input = { NPM_TOKEN: "n", OTHER_TOKEN: "o" };
    expect(childEnvironment(input, ["NPM_TOKEN"])).toEqual({ NPM_TOKEN: "n" });
    expect(input).toEqual({ NPM_TOKEN: "n", OTHER_TOKEN: "o" });
  });
});
