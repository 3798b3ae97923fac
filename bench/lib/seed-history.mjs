// A long history for an agent that keeps its sessions in JSONL files (cairn, Claude Code, Codex,
// pi): a one-turn session the agent wrote itself, its turn repeated until the session holds the
// number of messages wanted, then resumed. Each agent's own records are copied — only their ids
// are made unique and their links (a parent chain, a sequence number) kept consistent — so the
// file stays in the agent's format without this code knowing more of it than that.
import { randomBytes, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const WHOLE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MESSAGE_ID = /msg_scripted_[0-9_]+/g;

/** Every `.jsonl` file under `dir`. @param {string} dir @returns {string[]} */
function jsonlFiles(dir) {
  /** @type {string[]} */
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...jsonlFiles(path));
    else if (name.endsWith(".jsonl")) found.push(path);
  }
  return found;
}

/**
 * The transcript an agent wrote under `home`: the JSONL file holding both the prompt and the
 * answer (a prompt history holds only the prompt).
 * @param {string} home @param {string} prompt @param {string} answer
 */
export function findTranscript(home, prompt, answer) {
  const found = jsonlFiles(home).filter((path) => {
    const text = readFileSync(path, "utf8");
    return text.includes(prompt) && text.includes(answer);
  });
  if (found.length !== 1)
    throw new Error(`expected one transcript with the turn under ${home}, found ${found.length}`);
  return found[0];
}

/**
 * `text` (a JSONL transcript of one turn) with that turn's records repeated `copies` more times.
 * The turn's records are the lines that hold the prompt or the answer. In each copy, UUIDs (but
 * `keep`, the session's own) and scripted message ids are replaced by fresh ones; a parent chain
 * (`uuid`/`parentUuid`, `id`/`parentId`) runs through the copies in order; `ordinal` and
 * `metadata.history_sequence` numbers are renumbered to stay increasing.
 * @param {string} text @param {{ prompt: string, answer: string, copies: number, keep: string[] }} options
 */
export function repeatTurn(text, { prompt, answer, copies, keep }) {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const turn = lines.filter(
    (line) => line.includes(JSON.stringify(prompt).slice(1, -1)) || line.includes(answer),
  );
  if (turn.length === 0) throw new Error("no record of the turn in the transcript");
  const records = lines.map((line) => JSON.parse(line));
  const chain = records.some((r) => "parentUuid" in r)
    ? ["uuid", "parentUuid"]
    : records.some((r) => "parentId" in r)
      ? ["id", "parentId"]
      : undefined;
  let lastId = chain ? records.findLast((r) => typeof r[chain[0]] === "string")?.[chain[0]] : undefined;
  const out = [...lines];
  for (let copy = 1; copy <= copies; copy++) {
    /** @type {Map<string, string>} */
    const fresh = new Map();
    const renew = (/** @type {string} */ id, /** @type {() => string} */ make) => {
      if (keep.includes(id)) return id;
      if (!fresh.has(id)) fresh.set(id, make());
      return /** @type {string} */ (fresh.get(id));
    };
    for (const line of turn) {
      const record = JSON.parse(
        line
          .replace(UUID, (id) => renew(id, randomUUID))
          .replace(MESSAGE_ID, (id) => renew(id, () => `msg_scripted_copy_${copy}_${fresh.size}`)),
      );
      if (chain && lastId !== undefined && chain[0] in record) {
        const own = record[chain[0]];
        // An id that is not a UUID (pi's eight hex digits) gets a fresh one of the same shape.
        record[chain[0]] =
          typeof own === "string" && !WHOLE_UUID.test(own)
            ? randomBytes(own.length / 2).toString("hex")
            : own;
        record[chain[1]] = lastId;
        lastId = record[chain[0]];
      }
      out.push(JSON.stringify(record));
    }
  }
  renumber(out);
  return `${out.join("\n")}\n`;
}

/** Keeps `ordinal` and `metadata.history_sequence` increasing through the lines. @param {string[]} lines */
function renumber(lines) {
  let ordinal = 0;
  let sequence = 0;
  for (let i = 0; i < lines.length; i++) {
    const record = JSON.parse(lines[i]);
    let changed = false;
    if (typeof record.ordinal === "number") {
      record.ordinal = ordinal++;
      changed = true;
    }
    const metadata = record.metadata;
    if (metadata && typeof metadata.history_sequence === "number") {
      if (sequence === 0) sequence = metadata.history_sequence;
      else sequence += 1;
      if (typeof metadata.sampled_through_sequence === "number" && metadata.sampled_through_sequence > 0)
        metadata.sampled_through_sequence = sequence - 1;
      metadata.history_sequence = sequence;
      changed = true;
    }
    if (changed) lines[i] = JSON.stringify(record);
  }
}

/**
 * Repeats the one turn of the transcript under `home` until it holds about `messages` messages
 * (a turn is two: the prompt and the answer). Returns the file.
 * @param {string} home @param {{ prompt: string, answer: string, messages: number }} options
 */
export function lengthenTranscript(home, { prompt, answer, messages }) {
  const file = findTranscript(home, prompt, answer);
  const sessionIds = [...file.matchAll(UUID)].map((match) => match[0]);
  writeFileSync(
    file,
    repeatTurn(readFileSync(file, "utf8"), { prompt, answer, copies: messages / 2 - 1, keep: sessionIds }),
  );
  return file;
}
