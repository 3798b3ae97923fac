import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** The heap may grow this much past what the last collection kept before a turn's end collects. */
const RECLAIM_AFTER_BYTES = 4 * 1024 * 1024;
/** The young generation stops growing once it is this large (V8's own limit is eight times as much). */
const YOUNG_GENERATION_CAP = 4 * 1024 * 1024;

/**
 * Keeps a long interactive session's memory flat (docs/performance.md, "The interactive mode"). Each
 * turn of a long conversation leaves megabytes of garbage — the request bodies that carry the whole
 * history, their encoded copies, the streamed events — most of it large strings that only a full
 * collection frees, which V8 puts off while the heap may still grow: left to itself, the process
 * grew 50–65 MB from message 50 to 1,000 while what it kept grew by 4. So when a turn ends (the user
 * reads the answer: nothing is being drawn or typed) and the heap grew by more than 4 MB since the
 * last collection, a full collection runs then (a few milliseconds for this heap), and V8 gives
 * the freed pages back. (At 8 MB, the growth from message 50 to 1,000 was 7.5–12 MB; at 4 MB,
 * 7.3–10.5; what was left were the malloc arenas of V8's compiler threads, which
 * stopOptimizingCompilers below keeps still: docs/performance.md.)
 * Without access to the collector (a runtime that refuses the flag), nothing happens.
 */
export class MemoryReclaim {
  private collect: (() => void) | null | undefined;
  private kept = process.memoryUsage().heapUsed;
  private youngCapped = false;

  constructor() {
    stopOptimizingCompilers();
  }

  /** A turn ended: collects when the heap grew enough since the last collection. */
  turnEnded(): void {
    this.capYoungGeneration();
    if (process.memoryUsage().heapUsed - this.kept < RECLAIM_AFTER_BYTES) return;
    const collect = this.collector();
    if (!collect) return;
    collect();
    this.kept = process.memoryUsage().heapUsed;
  }

  /**
   * The young generation grows (doubling) while a long session allocates fast, to 32 MB by default,
   * and keeps that size: most of the growth left once the collections ran. Once it reached 4 MB it
   * grows no further (V8 reads its growth factor each time it would grow it); its collections cost
   * what survives them, not the space's size, and the CPU per streamed delta did not change
   * (docs/performance.md: at 8 MB the growth from message 50 to 1,000 was 9.5 MB, at 4 MB 7.6,
   * at 2 MB no lower).
   */
  private capYoungGeneration(): void {
    if (this.youngCapped) return;
    const young = getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
    if (!young || young.space_size < YOUNG_GENERATION_CAP) return;
    this.youngCapped = true;
    try {
      setFlagsFromString("--semi-space-growth-factor=1");
    } catch {
      // A runtime that refuses the flag: the young generation grows as V8 likes.
    }
  }

  private collector(): (() => void) | null {
    if (this.collect === undefined) {
      try {
        // The collector is exposed to a new context only: the process's own global stays as it was.
        setFlagsFromString("--expose-gc");
        this.collect = runInNewContext("gc") as () => void;
      } catch {
        this.collect = null;
      }
    }
    return this.collect;
  }
}

/**
 * V8's optimizing compilers (TurboFan; Maglev too on Node 22 and 24) stop optimizing functions; the
 * interpreter and the baseline compiler (Sparkplug) run the rest of the session. They compile on
 * V8's worker threads, and each compile's scratch memory is malloc'd there: glibc gives each thread
 * an arena of its own, and the arenas kept those pages. In a long session the compiles never end —
 * the collections between turns drop the optimized code of every function whose closures died (a
 * request's, a stream's), and the next turn optimizes them again (116 compiles from message 500 to
 * 1,000) — so the arenas grew all along: 3–8 MB of the growth on Node 20, 9–11 MB on Node 22. The
 * thread pool and the arenas can only be set before the process starts; these flags are read at
 * each tier-up, so they work from here. What it costs (docs/performance.md, "The interactive
 * mode"): per frame and per key nothing measurable; a large one-off job takes about twice as long
 * (the diff of an Edit to a 5,000-line file: 15 ms instead of 6).
 * Print mode, the SDK and the servers keep the optimizing compilers: they never load this module.
 */
function stopOptimizingCompilers(): void {
  for (const flag of ["--no-turbofan", "--no-maglev"]) {
    try {
      setFlagsFromString(flag);
    } catch {
      // A runtime that refuses the flag keeps its compilers.
    }
  }
}
