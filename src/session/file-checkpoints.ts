import type { RewindFilesResult } from "../sessions/checkpoints.js";
import type { FileCheckpointStore } from "../sessions/transcript-store.js";

/**
 * A session's file checkpoints (SDK `enableFileCheckpointing`): one store per session, where its
 * transcript store keeps them, opened when the first turn starts (or by `rewindFiles` on a resumed
 * session before any turn).
 */
export class SessionFileCheckpoints {
  private store: { sessionId: string; checkpoints: FileCheckpointStore } | undefined;

  constructor(
    private readonly enabled: boolean,
    /** The checkpoints of a session id (kept by its transcript store, or in memory). */
    private readonly checkpointsOf: (sessionId: string) => FileCheckpointStore,
  ) {}

  /** A turn for `userMessageId` starts in `sessionId`; what its tools change is saved from now on. */
  begin(sessionId: string, userMessageId: string): ((file: string) => Promise<void>) | undefined {
    if (!this.enabled) return undefined;
    const checkpoints = this.open(sessionId);
    // A store that waits for its storage (TranscriptStore's interface) is waited for before the
    // turn's first save; a failed start fails that save, so the change is not made unrecorded.
    const begun = Promise.resolve(checkpoints.begin(userMessageId));
    begun.catch(() => {}); // reported by the first save, if any file is changed
    return async (file) => {
      await begun;
      return checkpoints.beforeChange(file);
    };
  }

  async rewind(
    sessionId: string | undefined,
    userMessageId: string,
    options: { dryRun?: boolean } | undefined,
  ): Promise<RewindFilesResult> {
    if (!this.enabled) {
      return {
        canRewind: false,
        error: "File checkpointing is off: pass enableFileCheckpointing: true to query() to rewind files.",
      };
    }
    const id = this.store?.sessionId ?? sessionId;
    if (id === undefined)
      return { canRewind: false, error: `No turn has run yet: nothing to rewind to ${userMessageId}.` };
    return this.open(id).rewind(userMessageId, options ?? {});
  }

  private open(sessionId: string): FileCheckpointStore {
    if (this.store?.sessionId !== sessionId) {
      this.store = { sessionId, checkpoints: this.checkpointsOf(sessionId) };
    }
    return this.store.checkpoints;
  }
}
