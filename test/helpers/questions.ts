/**
 * The AskUserQuestion questions the door tests ask (SDK, ACP, the interactive mode, the agent-SDK
 * protocol): one single-choice question, and one of each kind for a second question.
 */
export const LIBRARY_QUESTION = {
  question: "Which library should we use?",
  header: "Library",
  options: [
    { label: "date-fns", description: "Small, functional" },
    { label: "luxon", description: "Time zones built in" },
  ],
  multiSelect: false,
};

/** A multi-select question: several answers joined with ", ". */
export const CHECKS_QUESTION = {
  question: "Which checks should run?",
  header: "Checks",
  options: [
    { label: "lint", description: "biome" },
    { label: "types", description: "tsc" },
    { label: "tests", description: "vitest" },
  ],
  multiSelect: true,
};

/** A second single-choice question with three options. */
export const RUNTIME_QUESTION = {
  question: "Which runtime?",
  header: "Runtime",
  options: [
    { label: "Node", description: "LTS" },
    { label: "Bun", description: "Fast" },
    { label: "Deno", description: "Secure" },
  ],
  multiSelect: false,
};
