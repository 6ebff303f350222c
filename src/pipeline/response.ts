import type { SnapshotView } from '../model/view.js';
import type { SecretEchoes } from './secrets.js';
import { pairPartUri } from '../capture/index.js';

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

/**
 * A text with every known secret masked line by line: a line that holds one only in part
 * (or across its words) is masked whole, and the other lines stay as they are (a summary's
 * file path, its status, the lines of a tree file).
 */
export function scrubLines(text: string, echoes: Pick<SecretEchoes, 'scrub'>): string {
  return text
    .split('\n')
    .map((line) => echoes.scrub(line))
    .join('\n');
}

/**
 * The response with every secret this server knows masked wherever it is echoed, in what it
 * says and in its steps' responses (never in its images: they are filled, not rewritten).
 * The last guard before a result goes out or is recorded: the desktop's reads mask them too.
 */
export function withoutEchoes(response: ToolResponse, echoes: SecretEchoes): ToolResponse {
  if (echoes.size === 0) return response;
  return {
    ...response,
    text: scrubLines(response.text, echoes),
    structured: echoes.scrubDeep(response.structured),
    ...(response.calls
      ? {
          calls: response.calls.map((c) => ({
            ...c,
            response: withoutEchoes(c.response, echoes),
          })),
        }
      : {}),
  };
}

/**
 * The tree files of the summaries (a response's, its steps') whose text `masked` changed:
 * what they listed did not reach the agent as it was.
 */
export function maskedFiles(before: ToolResponse, masked: ToolResponse): string[] {
  if (before === masked) return [];
  const file = before.structured.file;
  const own = masked.text !== before.text && typeof file === 'string' ? [file] : [];
  const steps = (before.calls ?? []).flatMap((c, i) => {
    const after = masked.calls?.[i];
    return after ? maskedFiles(c.response, after.response) : [];
  });
  return [...own, ...steps];
}

/**
 * Where a client reads a file a call wrote: its axpage://pair/ URI, which any client reads
 * with resources/read (a chat app or a remote HTTP client has no access to the server's
 * files); a file:// URI only for a file that is not one of the artifact dir's.
 */
export function artifactUri(file: string): string {
  return pairPartUri(file.slice(file.lastIndexOf('/') + 1)) ?? `file://${encodeURI(file)}`;
}
