import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Many tests spawn the built CLI; two cores are the norm on CI.
    pool: "forks",
    setupFiles: ["test/setup-home.ts"],
    // Rebuilds dist/ when src/ changed, so running one test file never tests an old build.
    globalSetup: ["test/global-setup.ts"],
  },
});
