/**
 * The MCP server: tools registered from their definitions, one pipeline behind them.
 * Transport-agnostic: cli.ts serves it over stdio, transport/http.ts one per HTTP session.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createRequire } from 'node:module';
import type { Config } from './config.js';
import type { Desktop } from './platform/desktop.js';
import { Pipeline } from './pipeline/pipeline.js';
import { outputShape } from './summary/index.js';
import {
  askingFor,
  registerTool,
  samplerFor,
  serveToolList,
  withCheckedArguments,
} from './tools/define.js';
import { allTools } from './tools/index.js';
import type { ToolDefinition } from './tools/define.js';
import { resolveArtifactDir } from './capture/index.js';
import { quietCall } from './pipeline/notify.js';
import { SessionRecorder } from './pipeline/record.js';
import type { ToolResponse } from './pipeline/response.js';
import type { Clipboard } from './platform/desktop.js';
import {
  executableOf,
  openClipboard,
  platformVocabulary,
  processAncestors,
  programIdentity,
  secretFieldStore,
} from './platform/index.js';
import { useVocabulary } from './model/vocabulary.js';
import { secretFields, type StoreOperation } from './pipeline/secret-fields.js';
import { registerSurface } from './surface/index.js';
import { withAsked } from './elicit/asking.js';

const require = createRequire(import.meta.url);
const pkg = require('../package.json') as { version: string };

export const INSTRUCTIONS = `axpage lets you see and operate desktop apps through their accessibility trees.
Every call writes a tree file (one element per line: [AXRole (native role)] "text" eN x: y: w: h: flags) and a PNG screenshot of the same moment, and returns a short summary with their paths.
- Grep the tree file (grep -n 'AXButton' <file>) instead of asking for more output; elements carry refs (e42).
- Act by ref (ref: "e42"), by query ("button:Save", "Name"), or by coordinates. A ref names its app by itself.
- Action summaries list what changed (added/removed/modified, text old -> new) and the visible elements after the action; an app_switch section appears when another app came to the front.
- app accepts a name, pid, alias or window title; connecting first is optional.`;

export interface ServerHandle {
  server: McpServer;
  pipeline: Pipeline;
  session: SessionRecorder;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** The desktop's clipboard (default: this platform's, opened on first use). */
  openClipboard?: () => Promise<Clipboard>;
}

let secretFieldsPersisted = false;
/** The servers of this process with a client to tell (HTTP serves one per session). */
const liveServers = new Set<McpServer>();
/** Store problems already told: each once per process, however often it recurs. */
const toldStoreProblems = new Set<string>();

/**
 * The process's memory of password fields, kept for every other server on this desktop too
 * (an app may reveal a field between two servers). Once per process: HTTP serves many servers.
 */
function persistSecretFields(): void {
  if (secretFieldsPersisted) return;
  secretFieldsPersisted = true;
  const store = secretFieldStore();
  if (store) secretFields.persistIn(store, tellStoreProblem);
}

/**
 * A store that fails is never silent: the server log (stderr) and every connected client (an
 * MCP log message, level warning) hear of it. The call itself goes on: what it returns is
 * kept secret by this server's own memory either way.
 */
function tellStoreProblem(err: unknown, op: StoreOperation): void {
  const why = err instanceof Error ? err.message : String(err);
  const message =
    op === 'save'
      ? `password fields seen by this server are not kept for other servers on this desktop (${why}); ` +
        'this server still keeps them secret, and saves them again at its next look'
      : `cannot take in the password fields other servers on this desktop saw (${why}); ` +
        'a field an app revealed before this server saw it may read as plain text here';
  if (toldStoreProblems.has(message)) return;
  toldStoreProblems.add(message);
  process.stderr.write(`axpage: ${message}\n`);
  for (const server of liveServers) {
    if (!server.isConnected()) continue;
    void server
      .sendLoggingMessage({ level: 'warning', logger: 'axpage', data: message })
      .catch(() => undefined);
  }
}

export function createServer(
  openDesktop: () => Promise<Desktop>,
  config: Config,
  opts: ServerOptions = {},
): ServerHandle {
  const server = new McpServer(
    { name: 'axpage', version: pkg.version },
    { capabilities: { logging: {} }, instructions: INSTRUCTIONS },
  );
  persistSecretFields();
  // What the backend's role and action names mean, for queries parsed before the desktop opens.
  useVocabulary(platformVocabulary());
  liveServers.add(server);
  // What this server launches is its own: a denied app that started the server (the
  // terminal its client runs in) does not make every launch denied.
  const pipeline = new Pipeline(openDesktop, config, executableOf, programIdentity(), (pid) =>
    processAncestors(pid, process.pid),
  );
  const policy = pipeline.policy;
  let clipboardPromise: Promise<Clipboard> | undefined;
  const clipboard = (): Promise<Clipboard> =>
    (clipboardPromise ??= (opts.openClipboard ?? (() => openClipboard()))().catch(
      (err: unknown) => {
        clipboardPromise = undefined;
        throw err;
      },
    ));
  const kinds = new Map(allTools.map((t) => [t.name, t.kind]));
  pipeline.useClipboard(clipboard);
  // Copies and pastes are judged by what the selections hold as they happen.
  pipeline.selections.readWith(async () => {
    const clip = await clipboard();
    return { read: (selection) => clip.read(selection) };
  });
  const session = new SessionRecorder(
    resolveArtifactDir({ ...process.env, AXPAGE_OUT: config.outDir }),
    {
      recordText: config.recordText,
      kindOf: (tool) => kinds.get(tool),
      selections: pipeline.selections,
    },
  );
  // A mode that does not list a tool does not register it: it cannot be called either.
  const contextOf = (signal: AbortSignal) => ({ pipeline, signal, session, clipboard });
  // What a call shows the person is masked like everything it returns.
  const scrub = (text: string) => pipeline.selections.echoes.scrub(text);
  for (const tool of allTools.filter((t) => policy.toolListed(t))) {
    registerTool(
      server,
      recorded(withCheckedArguments(tool), session),
      outputShape,
      (extra) => ({ ...contextOf(extra.signal), sample: samplerFor(server, extra) }),
      (extra) => askingFor(server, extra, scrub),
    );
  }
  serveToolList(server);
  // Resource reads that walk run the tool's handler as a call would, recorded like one.
  registerSurface(server, pipeline, (tool, args) =>
    recorded(tool, session).handle(args, {
      ...contextOf(new AbortController().signal),
      call: quietCall(tool.name),
    }),
  );
  return {
    server,
    pipeline,
    session,
    async close() {
      liveServers.delete(server);
      await pipeline.close();
      await clipboardPromise?.then((c) => c.close()).catch(() => undefined);
      await server.close();
    },
  };
}

/**
 * The same tool, with every call recorded by the session recorder (the session log, and
 * the audit log for calls that change an app): typed text masked, never a password.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function recorded(def: ToolDefinition<any>, session: SessionRecorder): ToolDefinition<any> {
  return {
    ...def,
    async handle(args, ctx) {
      const started = Date.now();
      // A copy an app made after the last action settled is judged before this call reads
      // or pastes anything, and one made during it before its response is masked.
      const call = await ctx.pipeline.selections.callStarted().catch(() => 0);
      let response: ToolResponse;
      try {
        response = await def.handle(args, ctx);
      } catch (err) {
        // What registerTool would answer: the record holds the same error code.
        response = ctx.pipeline.errorResponse(def.name, err);
      }
      await ctx.pipeline.selections.callEnded(call).catch(() => undefined);
      // What the call asked the person, and how it went: in its summary and its audit line.
      response = ctx.pipeline.withoutEchoes(withAsked(response, ctx.call.asking?.entries));
      await session.record(
        def.name,
        args as Record<string, unknown>,
        response,
        Date.now() - started,
        ctx.pipeline,
      );
      return response;
    },
  };
}
