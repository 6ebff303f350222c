import type { Pipeline } from '../pipeline/pipeline.js';
import type { SessionRecorder } from '../pipeline/record.js';
import type { Clipboard } from '../platform/desktop.js';

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  pipeline: Pipeline;
  /** Aborted when the client cancels the call. */
  signal: AbortSignal;
  /** This server session's record: counters, recent pairs, known secrets. */
  session: SessionRecorder;
  /** The desktop's text clipboard, opened on first use. */
  clipboard: () => Promise<Clipboard>;
}
