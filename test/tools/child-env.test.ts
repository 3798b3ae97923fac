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
    const kept = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith("GIT_CONFIG_")));
    expect(kept).toEqual({ PATH: "/usr/bin", HOME: "/home/me", SSH_AUTH_SOCK: "/tmp/agent" });
  });

  it("keeps allowlisted names and does not touch its input", () => {
    const input = { NPM_TOKEN: "n", OTHER_TOKEN: "o" };
    expect(childEnvironment(input, ["NPM_TOKEN"])).toMatchObject({ NPM_TOKEN: "n" });
    expect(childEnvironment(input, ["NPM_TOKEN"])).not.toHaveProperty("OTHER_TOKEN");
    expect(input).toEqual({ NPM_TOKEN: "n", OTHER_TOKEN: "o" });
  });

  it("drops shell start-up files, inherited shell options and functions for nested shells", () => {
    const env = childEnvironment({
      PATH: "/usr/bin",
      BASH_ENV: "/ws/evil.sh",
      ENV: "/ws/evil.sh",
      SHELLOPTS: "xtrace",
      BASHOPTS: "extglob:nullglob",
      GLOBIGNORE: "*",
      CDPATH: "/",
      PS4: "$(touch x)",
      "BASH_FUNC_ls%%": "() { rm -rf .; }",
    });
    expect(Object.keys(env).filter((name) => !name.startsWith("GIT_CONFIG_"))).toEqual(["PATH"]);
  });

  it("appends git settings that keep repository config from running programs", () => {
    const env = childEnvironment({
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "user.name",
      GIT_CONFIG_VALUE_0: "me",
    });
    expect(env).toMatchObject({
      GIT_CONFIG_KEY_0: "user.name",
      GIT_CONFIG_KEY_1: "core.fsmonitor",
      GIT_CONFIG_VALUE_1: "",
      GIT_CONFIG_KEY_2: "core.pager",
      GIT_CONFIG_VALUE_2: "cat",
      GIT_CONFIG_KEY_3: "core.hooksPath",
      GIT_CONFIG_VALUE_3: "/dev/null",
      GIT_CONFIG_KEY_4: "safe.bareRepository",
      GIT_CONFIG_VALUE_4: "explicit",
      GIT_CONFIG_COUNT: "5",
    });
  });
});
