// From the public agent-SDK docs, "structured-outputs" page: the JSON Schema example (outputFormat, structured_output). Verbatim but for the import
// (there: "@anthropic-ai/claude-agent-sdk") and the code block's indentation.
// Source: https://code.claude.com/docs/en/agent-sdk/structured-outputs (mirror used: github.com/thevibeworks/
// claude-code-docs, content/en/agent-sdk/structured-outputs.md at 3f1ef7c). Kept out of the formatter: verbatim.
import { query } from "cairn";

// Define the shape of data you want back
const schema = {
  type: "object",
  properties: {
    company_name: { type: "string" },
    founded_year: { type: "number" },
    headquarters: { type: "string" }
  },
  required: ["company_name"]
};

for await (const message of query({
  prompt: "Research Anthropic and provide key company information",
  options: {
    outputFormat: {
      type: "json_schema",
      schema: schema
    }
  }
})) {
  // The result message contains structured_output with validated data
  if (message.type === "result" && message.subtype === "success" && message.structured_output) {
    console.log(message.structured_output);
    // { company_name: "Anthropic", founded_year: 2021, headquarters: "San Francisco, CA" }
  }
}
