/** What a tool call returns: the rendered summary plus its structured twin. */
export interface ToolResponse {
  text: string;
  structured: Record<string, unknown>;
  isError: boolean;
  /** Inline images (only when a tool is asked for them). */
  images?: Array<{ data: string; mimeType: string }>;
}
