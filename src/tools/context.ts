import type { ToolCall } from '../pipeline/notify.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { SessionRecorder } from '../pipeline/record.js';
import type { Clipboard } from '../platform/desktop.js';

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  pipeline: Pipeline;
  /** This call: the tool's name, and where its log messages and progress go. */
  call: ToolCall;
  /** Aborted when the client cancels the call. */
  signal: AbortSignal;
  /** This server session's record: counters, recent pairs, known secrets. */
  session: SessionRecorder;
  /** The desktop's text clipboard, opened on first use. */
  clipboard: () => Promise<Clipboard>;
  /**
   * Asks the client's model (MCP sampling) and gives its text answer; absent when the
   * client did not declare sampling. Rejects when the client refuses, fails or times out.
   */
  sample?: (req: SampleRequest) => Promise<string>;
}

/** One question to the client's model: an optional image, then the text. */
export interface SampleRequest {
  text: string;
  image?: { data: string; mimeType: string };
  maxTokens: number;
  timeoutMs: number;
}
