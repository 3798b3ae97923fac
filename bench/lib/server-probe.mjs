// Timestamps what the scripted model server (running in this process) does, without changing it:
// when each request arrived, when its response headers (the first byte) and each text delta were
// handed to the socket, and when the response finished. performance.now() in this process, so the
// figures compare directly with when the bench read the child's stdout.
import http from "node:http";

/**
 * @typedef {object} RequestRecord
 * @property {string} url
 * @property {number} arrivedAt
 * @property {number} firstByteAt response headers flushed (NaN until then)
 * @property {number} finishedAt response ended (NaN until then)
 * @property {number[]} deltaWrites when each write carrying a text delta was made (if tracked)
 */

/** @type {Set<{ records: RequestRecord[], trackDeltas: boolean }>} */
const recorders = new Set();
let installed = false;

function install() {
  if (installed) return;
  installed = true;
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (/** @type {string} */ event, /** @type {any[]} */ ...args) {
    if (event === "request" && recorders.size > 0) watch(args[0], args[1]);
    return emit.call(this, event, ...args);
  };
}

/** @param {http.IncomingMessage} req @param {http.ServerResponse} res */
function watch(req, res) {
  const trackDeltas = [...recorders].some((recorder) => recorder.trackDeltas);
  /** @type {RequestRecord} */
  const record = {
    url: req.url ?? "",
    arrivedAt: performance.now(),
    firstByteAt: Number.NaN,
    finishedAt: Number.NaN,
    deltaWrites: [],
  };
  for (const recorder of recorders) recorder.records.push(record);
  const stamp = () => {
    if (Number.isNaN(record.firstByteAt)) record.firstByteAt = performance.now();
  };
  const flushHeaders = res.flushHeaders;
  res.flushHeaders = function () {
    stamp();
    return flushHeaders.call(this);
  };
  const write = res.write;
  res.write = function (/** @type {any} */ chunk, /** @type {any[]} */ ...rest) {
    stamp();
    if (trackDeltas && typeof chunk === "string" && chunk.includes('"text_delta"'))
      record.deltaWrites.push(performance.now());
    return write.call(this, chunk, ...rest);
  };
  res.on("finish", () => {
    stamp();
    record.finishedAt = performance.now();
  });
}

/**
 * Starts recording every request the in-process servers receive until `stop()`.
 * @param {{ trackDeltas?: boolean }} [options]
 */
export function recordRequests(options = {}) {
  install();
  const recorder = {
    records: /** @type {RequestRecord[]} */ ([]),
    trackDeltas: options.trackDeltas ?? false,
  };
  recorders.add(recorder);
  return {
    records: recorder.records,
    stop() {
      recorders.delete(recorder);
    },
  };
}
