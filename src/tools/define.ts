/**
 * The tool helper: a tool is its schema, its annotations and its handler side by side.
 * Handlers never format text: they return a ToolResponse that the pipeline rendered.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolContext } from './context.js';
import type { ToolResponse } from '../pipeline/response.js';

/**
 * What a tool does to the world; the MCP annotations follow from it so that no tool
 * can claim to be read-only and act, or forget a hint.
 */
export type ToolKind =
  /** Reads state, changes nothing. */
  | 'read'
  /** Changes the app (click, type): not idempotent, may be destructive. */
  | 'action'
  /** Changes the app to a given state (set value): repeating it is harmless. */
  | 'idempotent-action'
  /** Changes only axpage's own session state (connect, alias). */
  | 'session';

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  kind: ToolKind;
  input: Input;
  /** Tool-specific structured fields, added to the common summary fields. */
  output?: z.ZodObject;
  handle(args: z.infer<Input>, ctx: ToolContext): Promise<ToolResponse>;
}

/** How much of the visible list a summary shows (every tool that publishes a tree takes it). */
export const detailArg = z
  .enum(['auto', 'full'])
  .optional()
  .describe(
    'auto (default): visible_elements lists only what this session has not shown yet or what changed since, and counts the rest in one line; full: lists them all again (capped).',
  );

export function defineTool<Input extends z.ZodObject>(
  def: ToolDefinition<Input>,
): ToolDefinition<Input> {
  return def;
}

export function annotationsFor(kind: ToolKind, title: string) {
  return {
    title,
    readOnlyHint: kind === 'read',
    destructiveHint: kind === 'action' || kind === 'idempotent-action',
    idempotentHint: kind !== 'action',
    openWorldHint: false,
  };
}

export function toCallToolResult(response: ToolResponse): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: response.text }];
  for (const image of response.images ?? []) {
    content.push({ type: 'image', data: image.data, mimeType: image.mimeType });
  }
  return {
    content,
    structuredContent: response.structured,
    ...(response.isError ? { isError: true } : {}),
  };
}

export function registerTool(
  server: McpServer,
  // Tools differ in input type; the registry holds them side by side.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  def: ToolDefinition<any>,
  outputBase: z.ZodObject,
  makeContext: (extra: ToolCallExtra) => ToolContext,
): void {
  // Tool fields are optional in the schema because an error result carries only the
  // common fields plus the error's code and details (clients validate those too).
  const outputSchema = outputBase.extend({
    ...(def.output ? def.output.partial().shape : {}),
    error_code: z.string().optional(),
    error_details: z.record(z.string(), z.unknown()).optional(),
  });
  server.registerTool(
    def.name,
    {
      title: def.title,
      description: def.description,
      inputSchema: def.input,
      outputSchema,
      annotations: annotationsFor(def.kind, def.title),
    },
    async (args: unknown, extra: ToolCallExtra) => {
      const ctx = makeContext(extra);
      try {
        return toCallToolResult(await def.handle(args, ctx));
      } catch (err) {
        return toCallToolResult(ctx.pipeline.errorResponse(def.name, err));
      }
    },
  );
}

/** The parts of the SDK's request extra that tools use. */
export interface ToolCallExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification?: (notification: never) => Promise<void>;
}
