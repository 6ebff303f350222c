import type { SnapshotView } from '../model/view.js';

/** What a tool call returns: the rendered summary plus its structured twin. */
export interface ToolResponse {
  text: string;
  structured: Record<string, unknown>;
  isError: boolean;
  /** Inline images (only when a tool is asked for them). */
  images?: Array<{ data: string; mimeType: string }>;
  /**
   * Calls this one made through other tools' handlers (a workflow's steps), for the
   * session recorder only: never sent to the client.
   */
  calls?: NestedCall[];
}

/** One call made inside another (a workflow step): recorded as part of it, masked alike. */
export interface NestedCall {
  tool: string;
  args: Record<string, unknown>;
  response: ToolResponse;
  /** The app's view right after it: what tells whether it went to a password field. */
  view?: SnapshotView;
}
