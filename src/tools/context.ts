import type { Pipeline } from '../pipeline/pipeline.js';

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  pipeline: Pipeline;
  /** Aborted when the client cancels the call. */
  signal: AbortSignal;
}
