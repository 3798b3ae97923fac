/**
 * The side-by-side interactive bench (bench/scenarios/peers-interactive.mjs, `--peers`, never run in
 * CI) resumes each agent on its own one-turn transcript with that turn repeated to 1,000 messages.
 * A copy that kept the original's ids, broke the parent chain or repeated a sequence number would
 * be dropped or misread by the agent on resume, and the "long history" figures would be measured
 * on a short one. The record shapes below are trimmed from what Claude Code, pi and Codex wrote.
 */
import { describe, expect, it } from "vitest";
import { repeatTurn } from "../bench/lib/seed-history.mjs";

const SESSION = "6fbc1aca-6972-4936-b464-e34e3338d129";
const lines = (records: object[]) => `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
/** The fields of the records these tests look at. */
type Rec = {
  type?: string;
  uuid?: string;
  parentUuid?: string | null;
  id?: string;
  parentId?: string | null;
  sessionId?: string;
  ordinal?: number;
  message?: { id?: string };
  metadata?: { history_sequence: number; sampled_through_sequence: number };
  payload?: { role?: string };
};
const parse = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Rec);

describe("bench: repeating a transcript's turn (seed-history)", () => {
  it("keeps a uuid/parentUuid chain unbroken through the copies, with fresh uuids and message ids", () => {
    const text = lines([
      { type: "mode", mode: "normal", sessionId: SESSION },
      {
        parentUuid: null,
        type: "user",
        message: { role: "user", content: "Warm up" },
        uuid: "330ca27e-840f-4d11-9f99-8138b311852a",
        sessionId: SESSION,
      },
      {
        parentUuid: "330ca27e-840f-4d11-9f99-8138b311852a",
        type: "attachment",
        uuid: "923940e4-5db5-49ed-a50f-5b84f760e4db",
        sessionId: SESSION,
      },
      {
        parentUuid: "923940e4-5db5-49ed-a50f-5b84f760e4db",
        type: "assistant",
        message: { id: "msg_scripted_1", role: "assistant", content: [{ type: "text", text: "WARMDONE" }] },
        uuid: "46a8c30a-61b9-4987-8e9c-3dbf1e93870a",
        sessionId: SESSION,
      },
    ]);
    const out = parse(
      repeatTurn(text, { prompt: "Warm up", answer: "WARMDONE", copies: 3, keep: [SESSION] }),
    );
    const turn = out.filter((r) => r.type === "user" || r.type === "assistant");
    expect(turn.map((r) => r.type)).toEqual(Array(4).fill(["user", "assistant"]).flat());
    // The attachment is not part of the repeated turn.
    expect(out.filter((r) => r.type === "attachment")).toHaveLength(1);
    expect(new Set(turn.map((r) => r.uuid)).size).toBe(turn.length);
    expect(new Set(turn.map((r) => r.message?.id).filter(Boolean)).size).toBe(4);
    for (let i = 4; i < out.length; i++) expect(out[i].parentUuid).toBe(out[i - 1].uuid);
    expect(out.every((r) => r.sessionId === SESSION)).toBe(true);
  });

  it("gives ids that are not UUIDs (pi's eight hex digits) fresh ones of the same shape", () => {
    const text = lines([
      { type: "session", version: 3, id: "01a24eb4-1204-750a-b5b9-4098f229492c" },
      { type: "model_change", id: "339fb186", parentId: null },
      {
        type: "message",
        id: "286a25d8",
        parentId: "339fb186",
        message: { role: "user", content: [{ type: "text", text: "Warm up" }] },
      },
      {
        type: "message",
        id: "2633474a",
        parentId: "286a25d8",
        message: { role: "assistant", content: [{ type: "text", text: "Warm answer. WARMDONE" }] },
      },
    ]);
    const out = parse(
      repeatTurn(text, {
        prompt: "Warm up",
        answer: "WARMDONE",
        copies: 2,
        keep: ["01a24eb4-1204-750a-b5b9-4098f229492c"],
      }),
    );
    const messages = out.filter((r) => r.type === "message");
    expect(messages).toHaveLength(6);
    expect(messages.every((r) => /^[0-9a-f]{8}$/.test(r.id ?? ""))).toBe(true);
    expect(new Set(messages.map((r) => r.id)).size).toBe(6);
    for (let i = 4; i < out.length; i++) expect(out[i].parentId).toBe(out[i - 1].id);
  });

  it("renumbers ordinals and history sequence numbers so they keep increasing", () => {
    const text = lines([
      { ordinal: 0, type: "session_meta", payload: { id: SESSION } },
      {
        ordinal: 1,
        type: "response_item",
        payload: { role: "user", content: [{ type: "input_text", text: "Warm up" }] },
        metadata: { history_sequence: 7, sampled_through_sequence: 0 },
      },
      {
        ordinal: 2,
        type: "response_item",
        payload: { role: "assistant", content: [{ type: "output_text", text: "WARMDONE" }] },
        metadata: { history_sequence: 8, sampled_through_sequence: 7 },
      },
      { ordinal: 3, type: "event_msg", payload: { type: "token_count" } },
    ]);
    const out = parse(
      repeatTurn(text, { prompt: "Warm up", answer: "WARMDONE", copies: 2, keep: [SESSION] }),
    );
    expect(out.map((r) => r.ordinal)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const sequences = out.flatMap((r) => (r.metadata ? [r.metadata.history_sequence] : []));
    expect(sequences).toEqual([7, 8, 9, 10, 11, 12]);
    const assistants = out.filter((r) => r.payload?.role === "assistant");
    expect(assistants.map((r) => r.metadata?.sampled_through_sequence)).toEqual([7, 9, 11]);
  });

  it("refuses a transcript without the turn", () => {
    expect(() =>
      repeatTurn(lines([{ type: "header" }]), { prompt: "Warm up", answer: "WARMDONE", copies: 1, keep: [] }),
    ).toThrow(/no record of the turn/);
  });
});
