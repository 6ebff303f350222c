/**
 * The MCP server: tools registered from their definitions, one pipeline behind them.
 * Transport-agnostic; cli.ts wires stdio.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createRequire } from 'node:module';
import type { Config } from './config.js';
import type { Desktop } from './platform/desktop.js';
import { Pipeline } from './pipeline/pipeline.js';
import { outputShape } from './summary/index.js';
import { registerTool, serveToolList } from './tools/define.js';
import { allTools } from './tools/index.js';
import type { ToolDefinition } from './tools/define.js';
import { AuditLog } from './guard/audit.js';
import { isMutating } from './guard/policy.js';
import { resolveArtifactDir } from './capture/index.js';
import { registerSurface } from './surface/index.js';

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
  close(): Promise<void>;
}

export function createServer(openDesktop: () => Promise<Desktop>, config: Config): ServerHandle {
  const server = new McpServer(
    { name: 'axpage', version: pkg.version },
    { capabilities: { logging: {} }, instructions: INSTRUCTIONS },
  );
  const pipeline = new Pipeline(openDesktop, config);
  const policy = pipeline.policy;
  const audit = AuditLog.in(resolveArtifactDir({ ...process.env, AXPAGE_OUT: config.outDir }));
  // A mode that does not list a tool does not register it: it cannot be called either.
  for (const tool of allTools.filter((t) => policy.toolListed(t))) {
    const def = isMutating(tool.kind) ? audited(tool, audit) : tool;
    registerTool(server, def, outputShape, (extra) => ({ pipeline, signal: extra.signal }));
  }
  serveToolList(server);
  registerSurface(server, pipeline);
  return {
    server,
    pipeline,
    async close() {
      await pipeline.close();
      await server.close();
    },
  };
}

/** The same tool, with every call recorded in the audit log (never typed text). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function audited(def: ToolDefinition<any>, audit: AuditLog): ToolDefinition<any> {
  return {
    ...def,
    async handle(args, ctx) {
      const started = Date.now();
      const record = (outcome: 'success' | 'error', structured?: Record<string, unknown>) =>
        void audit.write({
          tool: def.name,
          args: args as Record<string, unknown>,
          outcome,
          error_code: structured?.error_code as string | undefined,
          pid: typeof structured?.pid === 'number' ? structured.pid : undefined,
          app: typeof structured?.app === 'string' ? structured.app : undefined,
          ms: Date.now() - started,
        });
      try {
        const response = await def.handle(args, ctx);
        record(response.isError ? 'error' : 'success', response.structured);
        return response;
      } catch (err) {
        record('error', { error_code: (err as { code?: string }).code });
        throw err;
      }
    },
  };
}
