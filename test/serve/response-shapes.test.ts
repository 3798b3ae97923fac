import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { bareRepository } from "./git-fixtures.js";
import { PG_SKIP, pgTitle, servingOnThrowawayPostgres, sql, waitFor } from "./helpers.js";
import { startWebhookReceiver } from "./webhook-receiver.js";

/** The reference's shapes, written from its public pages (each schema names its page). */
const shapes = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures/reference-shapes.json"), "utf8"));
const ajv = new Ajv({ allErrors: true, strict: false });

/** The answer's shape errors against the reference's `name` schema ([] when it conforms). */
function shapeErrors(name: string, value: unknown): string[] {
  const validate = ajv.compile({ ...shapes[name], definitions: shapes.definitions });
  return validate(value)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

const serving = servingOnThrowawayPostgres();

describe.skipIf(PG_SKIP !== undefined)(
  "cairn serve answers in the reference's shapes",
  { timeout: 180_000 },
  () => {
    test(
      pgTitle(
        "every v0 answer (launch, status, list, conversation, follow-up, stop, delete, me, models, repositories), the v0 webhook payload and v1's create validate against the reference's published shapes",
      ),
      async () => {
        const d = await serving.deploy({
          steps: [reply().text("One."), reply().text("Two."), reply().text("Three.")],
        });
        const secret = "another-webhook-secret-32-characters-long";
        const receiver = await startWebhookReceiver(secret);
        try {
          const repo = bareRepository();
          d.startWorker("w1");
          const [model] = (await d.request("GET", "/v0/models")).json.models;
          const launched = await d.request("POST", "/v0/agents", {
            prompt: { text: "one" },
            source: { repository: repo.url, ref: "main" },
            model,
            webhook: { url: receiver.url, secret },
          });
          expect(shapeErrors("v0Launch", launched.json)).toEqual([]);
          const id = launched.json.id;
          const finished = await waitFor("the agent", async () => {
            const agent = await d.request("GET", `/v0/agents/${id}`);
            return agent.json.status === "FINISHED" ? agent.json : undefined;
          });
          expect(shapeErrors("v0Status", finished)).toEqual([]);
          expect(shapeErrors("v0List", (await d.request("GET", "/v0/agents?limit=1")).json)).toEqual([]);
          expect(
            shapeErrors("v0Conversation", (await d.request("GET", `/v0/agents/${id}/conversation`)).json),
          ).toEqual([]);
          await waitFor("the webhook", () => receiver.received[0]);
          expect(shapeErrors("v0Webhook", receiver.received[0]!.body)).toEqual([]);
          const followUp = await d.request("POST", `/v0/agents/${id}/followup`, { prompt: { text: "two" } });
          expect(shapeErrors("v0AgentId", followUp.json)).toEqual([]);
          expect(shapeErrors("v0AgentId", (await d.request("POST", `/v0/agents/${id}/stop`)).json)).toEqual(
            [],
          );
          expect(shapeErrors("v0Me", (await d.request("GET", "/v0/me")).json)).toEqual([]);
          expect(shapeErrors("v0Models", (await d.request("GET", "/v0/models")).json)).toEqual([]);
          expect(shapeErrors("v0Repositories", (await d.request("GET", "/v0/repositories")).json)).toEqual(
            [],
          );
          // v1, on the same repository: its agent works in a clone of its own.
          const created = await d.request("POST", "/v1/agents", {
            prompt: { text: "three" },
            repos: [{ url: repo.url }],
          });
          expect(shapeErrors("v1Create", created.json)).toEqual([]);
          const cwd = sql(d, `SELECT cwd FROM cairn.agents WHERE id = '${created.json.agent.id}'`)[0]!;
          await waitFor("the v1 clone", () => existsSync(join(cwd, "README.md")) || undefined);
          expect(shapeErrors("v0AgentId", (await d.request("DELETE", `/v0/agents/${id}`)).json)).toEqual([]);
        } finally {
          await receiver.close();
        }
      },
    );

    test("the shape check fails an answer that is not the reference's (it can fail)", () => {
      expect(shapeErrors("v0Status", { id: "bc-1", status: "DONE" })).not.toEqual([]);
      expect(shapeErrors("v0Webhook", { event: "statusChange", id: "bc-1", status: "RUNNING" })).not.toEqual(
        [],
      );
    });
  },
);
