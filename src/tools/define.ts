/**
 * The tool helper: a tool is its schema, its annotations and its handler side by side.
 * Handlers never format text: they return a ToolResponse that the pipeline rendered.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  type ClientCapabilities,
  type CallToolResult,
  type CreateMessageRequest,
  type CreateMessageResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { SampleRequest, ToolContext } from './context.js';
import { artifactUri, type ToolResponse } from '../pipeline/response.js';
import { callNotifier, type NotifySinks } from '../pipeline/notify.js';
import { AxError } from '../errors.js';
import { closest } from '../query/text.js';
import { Asking, type FormRequest, type FormResult, type Scrub } from '../elicit/asking.js';

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
  | 'session'
  /** Runs a caller's script, which may do anything an action can: listed in full mode only. */
  | 'script';

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  kind: ToolKind;
  input: Input;
  /**
   * The tool's own structured fields beside the summary's: what its results carry. Not
   * listed in tools/list (every tool lists the one open summary schema), kept here as
   * the tool's documented contract.
   */
  output?: z.ZodObject;
  handle(args: z.infer<Input>, ctx: ToolContext): Promise<ToolResponse>;
}

/** How much of the visible list a summary shows (every tool that publishes a tree takes it). */
export const detailArg = z.enum(['auto', 'full']).optional().describe('full: list all visible.');

export function defineTool<Input extends z.ZodObject>(
  def: ToolDefinition<Input>,
): ToolDefinition<Input> {
  return def;
}

/**
 * Open-world for every kind: reads and actions touch whatever apps run on the desktop
 * (axpage does not know them in advance, nor what they show or do next), and even the
 * `session` kind (ax_connect) walks the app it connects to. Only the other hints vary.
 */
export function annotationsFor(kind: ToolKind) {
  return {
    readOnlyHint: kind === 'read',
    destructiveHint: kind === 'action' || kind === 'idempotent-action' || kind === 'script',
    idempotentHint: kind !== 'action' && kind !== 'script',
    openWorldHint: true,
  };
}

/** The hints MCP assumes when a tool leaves them out (spec: ToolAnnotations). */
const HINT_DEFAULTS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/**
 * The annotations as tools/list carries them: readOnlyHint and openWorldHint always
 * (the two a client decides on first), the others only where they differ from MCP's
 * defaults, and none that a read-only tool makes meaningless. Every tool pays for these
 * bytes in every session.
 */
export function listedAnnotations(kind: ToolKind): Partial<typeof HINT_DEFAULTS> {
  const hints = annotationsFor(kind);
  const listed: Partial<typeof HINT_DEFAULTS> = {
    readOnlyHint: hints.readOnlyHint,
    openWorldHint: hints.openWorldHint,
  };
  if (hints.readOnlyHint) return listed;
  for (const key of ['destructiveHint', 'idempotentHint'] as const) {
    if (hints[key] !== HINT_DEFAULTS[key]) listed[key] = hints[key];
  }
  return listed;
}

/** A file a result wrote, as a resource_link content block a client can read. */
function fileLink(file: unknown, mimeType: 'text/plain' | 'image/png') {
  if (typeof file !== 'string' || !file.startsWith('/')) return [];
  const name = file.slice(file.lastIndexOf('/') + 1);
  return [{ type: 'resource_link' as const, uri: artifactUri(file), name, mimeType }];
}

export function toCallToolResult(response: ToolResponse): CallToolResult {
  const content: CallToolResult['content'] = [
    { type: 'text', text: response.text },
    // The files the call wrote (their paths are in the summary and structuredContent too).
    ...fileLink(response.structured.file, 'text/plain'),
    ...fileLink(response.structured.screenshot, 'image/png'),
    // Images made from the pair (a visual diff, a marked screenshot).
    ...fileLink(response.structured.diff_png, 'image/png'),
    ...fileLink(response.structured.marks_png, 'image/png'),
  ];
  for (const image of response.images ?? []) {
    content.push({ type: 'image', data: image.data, mimeType: image.mimeType });
  }
  return {
    content,
    structuredContent: response.structured,
    ...(response.isError ? { isError: true } : {}),
  };
}

const ANY_ARGUMENTS = z.object({}).loose();

/**
 * Registers the tool with the SDK. `def.handle` gets the arguments as the client sent
 * them (any object): give a def made by withCheckedArguments, inside whatever records the
 * call, so a refusal of bad arguments is recorded like any other result.
 */
export function registerTool(
  server: McpServer,
  // Tools differ in input type; the registry holds them side by side.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  def: ToolDefinition<any>,
  outputBase: z.ZodObject,
  makeContext: (extra: ToolCallExtra) => Omit<ToolContext, 'call'>,
  /** The call's way to ask the person behind the client (elicitation), when there is one. */
  askingOf?: (extra: ToolCallExtra) => Asking,
): void {
  // One open schema for every tool: the summary fields every result has; a tool's own
  // fields (def.output) ride along, and an error result carries only the common fields.
  const outputSchema = outputBase;
  listingOf(server).push({
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: jsonSchemaOf(def.input, 'input'),
    outputSchema: jsonSchemaOf(outputSchema, 'output'),
    annotations: listedAnnotations(def.kind),
  });
  server.registerTool(
    def.name,
    {
      title: def.title,
      description: def.description,
      // Any object for the SDK: its own check would answer a wrong type or a value out of
      // range with a protocol error, before any handler (and so before the session log);
      // def.handle checks the arguments itself (withCheckedArguments). tools/list is our
      // own listing of the schema as declared.
      inputSchema: ANY_ARGUMENTS,
      outputSchema,
      annotations: { title: def.title, ...annotationsFor(def.kind) },
    },
    async (args: unknown, extra: ToolCallExtra) => {
      const call = {
        tool: def.name,
        notify: callNotifier(sinksOf(server, extra)),
        ...(askingOf ? { asking: askingOf(extra) } : {}),
      };
      const ctx: ToolContext = { ...makeContext(extra), call };
      call.notify.progress(`${def.name} started`);
      let response: ToolResponse;
      try {
        response = await def.handle(args, ctx);
      } catch (err) {
        response = ctx.pipeline.errorResponse(def.name, err);
      }
      if (response.structured.error_code === 'app_not_responding') {
        call.notify.log('warning', String(response.structured.error ?? 'an app is not responding'));
      }
      return toCallToolResult(response);
    },
  );
}

/**
 * The same tool, its handler given only arguments its schema accepts (parsed: defaults
 * and conversions applied); anything else is refused with an AxError naming the argument,
 * what it takes and an example, before anything has happened.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function withCheckedArguments(def: ToolDefinition<any>): ToolDefinition<any> {
  return {
    ...def,
    handle: (args, ctx) => def.handle(checkArguments(def.name, def.input, args), ctx),
  };
}

/** The arguments as the tool's handler takes them, or an AxError saying what is wrong. */
export function checkArguments<Input extends z.ZodObject>(
  tool: string,
  input: Input,
  args: unknown,
): z.infer<Input> {
  rejectUnknownArguments(tool, input, args);
  const parsed = input.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  throw schemaError(tool, input, args, parsed.error);
}

/**
 * The first problem of a call's arguments, said so that the next call can be right: the
 * argument, what is wrong, what it takes and an example. Never the value given (it may be
 * typed text).
 */
function schemaError(tool: string, input: z.ZodObject, args: unknown, error: z.ZodError): AxError {
  const [issue] = error.issues;
  const keys = issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k));
  const field = keys.reduce<string>(
    (at, k) => (typeof k === 'number' ? `${at}[${k}]` : at ? `${at}.${k}` : k),
    '',
  );
  const sub = schemaAt(input, keys);
  const json = sub ? jsonOf(sub) : undefined;
  const takes = json ? expectedOf(json) : undefined;
  const example = json ? exampleOf(json, sub ? descriptionsOf(sub) : []) : undefined;
  const missing = field !== '' && valueAt(args, keys) === undefined;
  const problem = missing ? 'is required' : `is invalid (${lowerFirst(issue.message)})`;
  const last = keys.at(-1);
  const eg =
    example === undefined
      ? ''
      : typeof last === 'string'
        ? `, e.g. ${JSON.stringify(last)}: ${JSON.stringify(example)}`
        : `, e.g. ${JSON.stringify(example)}`;
  const more =
    error.issues.length > 1 ? ` (${error.issues.length - 1} more problem(s) after it)` : '';
  const name = field === '' ? 'the arguments' : `argument ${JSON.stringify(field)}`;
  return new AxError(
    'bad_argument',
    `${name} of ${tool} ${problem}${takes ? `: it takes ${takes}` : ''}${eg}${more}`,
    'Call it again with that argument fixed; nothing was done',
    { argument: field },
  );
}

/** The schema of the argument at `path`, wrappers (optional, default, a conversion) undone. */
function schemaAt(input: z.ZodObject, path: Array<string | number>): z.ZodType | undefined {
  let at: z.ZodType | undefined = input;
  for (const key of path) {
    at = unwrapped(at);
    if (at instanceof z.ZodObject) at = (at.shape as Record<string, z.ZodType>)[String(key)];
    else if (at instanceof z.ZodArray) at = at.element as z.ZodType;
    else if (at instanceof z.ZodRecord) at = at.valueType as z.ZodType;
    else return undefined;
    if (at === undefined) return undefined;
  }
  return at;
}

function unwrapped(schema: z.ZodType): z.ZodType {
  let at = schema;
  for (let next = innerOf(at); next !== undefined; next = innerOf(at)) at = next;
  return at;
}

function innerOf(schema: z.ZodType): z.ZodType | undefined {
  const def = schema._zod.def as { innerType?: z.ZodType; in?: z.ZodType };
  return def.innerType ?? def.in;
}

/** The descriptions of a schema and what it wraps, outermost first (examples sit at any). */
function descriptionsOf(schema: z.ZodType): string[] {
  const out: string[] = [];
  for (let at: z.ZodType | undefined = schema; at !== undefined; at = innerOf(at)) {
    if (at.description) out.push(at.description);
  }
  return out;
}

type Json = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Json[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  items?: Json;
  properties?: Record<string, Json>;
  required?: string[];
  description?: string;
};

function jsonOf(schema: z.ZodType): Json | undefined {
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  } catch {
    return undefined;
  }
}

/** What a JSON schema accepts, in words: `an integer >= 0`, `one of "a", "b"`. */
function expectedOf(json: Json): string | undefined {
  if (json.enum) return `one of ${json.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (json.const !== undefined) return JSON.stringify(json.const);
  if (json.anyOf) {
    const each = json.anyOf.map(expectedOf);
    return each.every((e) => e !== undefined) ? each.join(' or ') : undefined;
  }
  const type = Array.isArray(json.type) ? json.type[0] : json.type;
  switch (type) {
    case 'integer':
    case 'number': {
      const noun = type === 'integer' ? 'an integer' : 'a number';
      const bounds = [
        json.minimum !== undefined ? `>= ${json.minimum}` : undefined,
        json.exclusiveMinimum !== undefined ? `> ${json.exclusiveMinimum}` : undefined,
        json.maximum !== undefined && json.maximum < Number.MAX_SAFE_INTEGER
          ? `<= ${json.maximum}`
          : undefined,
        json.exclusiveMaximum !== undefined ? `< ${json.exclusiveMaximum}` : undefined,
      ].filter((b) => b !== undefined);
      return bounds.length > 0 ? `${noun} ${bounds.join(' and ')}` : noun;
    }
    case 'string':
      return json.minLength ? 'a non-empty string' : 'a string';
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'a list';
    case 'object':
      return json.required?.length
        ? `an object with ${json.required.map((k) => JSON.stringify(k)).join(', ')}`
        : 'an object';
    default:
      return undefined;
  }
}

/** A value the schema accepts: the description's own example where it gives one. */
function exampleOf(json: Json, descriptions: string[] = []): unknown {
  if (json.enum) return json.enum[0];
  if (json.const !== undefined) return json.const;
  for (const description of [...descriptions, json.description ?? '']) {
    const example = exampleIn(json, description);
    if (example !== undefined) return example;
  }
  return exampleOfType(json);
}

/** The example a description gives (`e.g. 42`, `e.g. {"a": 1}`, `"gedit"`) if of the type. */
function exampleIn(json: Json, description: string): unknown {
  const given = description.match(/e\.g\. (\{[^}]*\}|\[[^\]]*\]|"[^"]*"|-?\d+(?:\.\d+)?)/)?.[1];
  const quoted = description.match(/"([^"]+)"/)?.[1];
  const parsed = given !== undefined ? parseJson(given) : undefined;
  for (const t of json.anyOf ?? [json]) {
    const types = Array.isArray(t.type) ? t.type : [t.type];
    const of = parsed === undefined ? undefined : jsonTypeOf(parsed);
    if (
      of !== undefined &&
      (types.includes(of) || (of === 'integer' && types.includes('number')))
    ) {
      return parsed;
    }
    if (types.includes('string') && quoted !== undefined) return quoted;
  }
  return undefined;
}

function exampleOfType(json: Json): unknown {
  const [first] = json.anyOf ?? [json];
  const type = Array.isArray(first.type) ? first.type[0] : first.type;
  switch (type) {
    case 'integer':
    case 'number': {
      const low =
        first.minimum ?? (first.exclusiveMinimum !== undefined ? first.exclusiveMinimum + 1 : 1);
      return first.maximum !== undefined ? Math.min(low, first.maximum) : low;
    }
    case 'string':
      return 'text';
    case 'boolean':
      return true;
    case 'array':
      return first.items ? [exampleOf(first.items)] : [];
    case 'object':
      return Object.fromEntries(
        (first.required ?? []).map((k) => [k, exampleOf(first.properties?.[k] ?? {})]),
      );
    default:
      return undefined;
  }
}

function jsonTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function valueAt(args: unknown, path: Array<string | number>): unknown {
  let at = args;
  for (const key of path) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/**
 * Refuses a call that names an argument the tool does not take: a typo (`qurey`) would
 * otherwise act as if the argument were not given, on the wrong element or on none.
 * Runs before the handler, so nothing has happened yet.
 */
export function rejectUnknownArguments(tool: string, input: z.ZodObject, args: unknown): void {
  if (typeof args !== 'object' || args === null) return;
  const known = Object.keys(input.shape);
  const unknown = Object.keys(args).filter((key) => !Object.hasOwn(input.shape, key));
  if (unknown.length === 0) return;
  const [first] = unknown;
  const near = closest(first, known, 1, Math.max(1, Math.ceil(first.length * 0.35)));
  const others = unknown.length > 1 ? ` (and ${unknown.slice(1).map(quoted).join(', ')})` : '';
  const list = known.length ? `Arguments: ${known.join(', ')}` : `${tool} takes no arguments`;
  throw new AxError(
    'bad_argument',
    `unknown argument ${quoted(first)}${others} for ${tool}`,
    near.length ? `Did you mean ${quoted(near[0])}? ${list}` : list,
    { unknown_arguments: unknown },
  );
}

function quoted(key: string): string {
  return JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);
}

const listings = new WeakMap<McpServer, Tool[]>();

function listingOf(server: McpServer): Tool[] {
  let listing = listings.get(server);
  if (!listing) listings.set(server, (listing = []));
  return listing;
}

/**
 * The JSON Schema of a tool's input or output, as the SDK would list it but without the
 * draft-07 `$schema` URL it repeats in every schema (two per tool).
 */
function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _draft, ...json } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io,
    override: ({ jsonSchema, path }) => {
      // An open object says nothing more with `additionalProperties: {}` (the default).
      const extra = jsonSchema.additionalProperties;
      if (typeof extra === 'object' && Object.keys(extra).length === 0) {
        delete jsonSchema.additionalProperties;
      }
      // A union of plain types (app: a name or a pid) as one type list, not an anyOf; the
      // members' bounds (a non-empty name, a positive pid) are said in the description
      // and checked by the server with an error that names them.
      const types = jsonSchema.anyOf?.map((s) => (typeof s === 'object' ? s.type : undefined));
      if (types?.every((t) => typeof t === 'string')) {
        delete jsonSchema.anyOf;
        jsonSchema.type = types as Array<'string' | 'number'>;
      }
      // A nested object of any keys says nothing more with an empty `properties` (a
      // tool's own input keeps it: some clients read the top level's properties).
      if (
        path.length > 0 &&
        jsonSchema.type === 'object' &&
        jsonSchema.properties &&
        Object.keys(jsonSchema.properties).length === 0
      ) {
        delete jsonSchema.properties;
      }
      // An enum of strings says its type by its values.
      if (jsonSchema.type === 'string' && jsonSchema.enum?.every((v) => typeof v === 'string')) {
        delete jsonSchema.type;
      }
    },
  });
  return json as Tool['inputSchema'];
}

/**
 * Answers tools/list from the registered definitions, computed once: the SDK's own
 * answer converts every schema again on each call and repeats the draft URL and the
 * default `execution` in every tool. Call after the last registerTool.
 */
export function serveToolList(server: McpServer): void {
  const tools = listingOf(server);
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
}

/**
 * Where a call's log messages and progress go: logging through the server (which drops
 * what is below the client's logging/setLevel), progress only when the request asked
 * for it with a progressToken.
 */
function sinksOf(server: McpServer, extra: ToolCallExtra): NotifySinks {
  const token = extra._meta?.progressToken;
  return {
    log: (level, data) =>
      server.sendLoggingMessage({ level, logger: 'axpage', data }, extra.sessionId),
    progress:
      token === undefined || !extra.sendNotification
        ? undefined
        : (progress, total, message) =>
            extra.sendNotification!({
              method: 'notifications/progress',
              params: {
                progressToken: token,
                progress,
                ...(total !== undefined ? { total } : {}),
                message,
              },
            }),
  };
}

/**
 * The call's way to the client's model: sampling/createMessage sent as a request of this
 * call (so the client can tie it to the call), undefined when the client did not declare
 * sampling.
 */
export function samplerFor(
  server: McpServer,
  extra: ToolCallExtra,
): ((req: SampleRequest) => Promise<string>) | undefined {
  const send = extra.sendRequest;
  if (!send || !server.server.getClientCapabilities()?.sampling) return undefined;
  return async ({ text, image, maxTokens, timeoutMs }) => {
    const messages: CreateMessageRequest['params']['messages'] = [
      ...(image ? [{ role: 'user' as const, content: { type: 'image' as const, ...image } }] : []),
      { role: 'user', content: { type: 'text', text } },
    ];
    const result = await send(
      { method: 'sampling/createMessage', params: { messages, maxTokens } },
      CreateMessageResultSchema,
      { signal: extra.signal, timeout: timeoutMs },
    );
    const content = Array.isArray(result.content) ? result.content : [result.content];
    return content
      .map((c) => (c.type === 'text' ? c.text : ''))
      .join('\n')
      .trim();
  };
}

/** How long the person has to answer a question: they read, think, look at the screen. */
export const ANSWER_TIMEOUT_MS = 10 * 60_000;

/** Whether the client takes form questions (an empty `elicitation: {}` means form). */
export function takesForms(caps: ClientCapabilities | undefined): boolean {
  const e = caps?.elicitation as Record<string, unknown> | undefined;
  if (!e) return false;
  return e.form !== undefined || Object.keys(e).length === 0;
}

/**
 * The call's way to the person behind the client: elicitation/create sent as a request of
 * this call, so over HTTP it goes on the call's own response stream, to the client that
 * made the call. An Asking that cannot ask when the client did not declare form mode.
 */
export function askingFor(server: McpServer, extra: ToolCallExtra, scrub?: Scrub): Asking {
  const send = extra.sendRequest as unknown as
    | ((
        request: { method: 'elicitation/create'; params: FormRequest },
        resultSchema: typeof ElicitResultSchema,
        options?: { signal?: AbortSignal; timeout?: number },
      ) => Promise<{ action: FormResult['action']; content?: Record<string, unknown> }>)
    | undefined;
  if (!send || !takesForms(server.server.getClientCapabilities())) {
    return new Asking(undefined, scrub);
  }
  return new Asking(async (params) => {
    const result = await send({ method: 'elicitation/create', params }, ElicitResultSchema, {
      signal: extra.signal,
      timeout: ANSWER_TIMEOUT_MS,
    });
    return {
      action: result.action,
      ...(result.content ? { content: result.content as Record<string, unknown> } : {}),
    };
  }, scrub);
}

/** The parts of the SDK's request extra that tools use. */
export interface ToolCallExtra {
  signal: AbortSignal;
  sendRequest?: (
    request: { method: 'sampling/createMessage'; params: CreateMessageRequest['params'] },
    resultSchema: typeof CreateMessageResultSchema,
    options?: { signal?: AbortSignal; timeout?: number },
  ) => Promise<CreateMessageResult>;
  sessionId?: string;
  _meta?: { progressToken?: string | number };
  sendNotification?: (notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; total?: number; message: string };
  }) => Promise<void>;
}
