/**
 * The resources: the artifact index and each pair, the running apps, the accessibility
 * status, and per-app templates (tree, windows, one element). Per-app reads run the same
 * tool handlers through the same pipeline, so each writes its pair like a tool call.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { ToolDefinition } from '../tools/define.js';
import type { ToolResponse } from '../pipeline/response.js';
import {
  openPairFile,
  parseArtifactFile,
  readPairFile,
  resolveArtifactDir,
  splitPairPart,
  type PairPart,
} from '../capture/index.js';
import { getTree, listWindows } from '../tools/observe.js';
import { getAttributes } from '../tools/find.js';
import {
  buildIndex,
  groupPairs,
  headerFacts,
  INDEX_LIMIT,
  pairUri,
  type DirEntry,
  type PairFiles,
} from './artifact-index.js';
import { completeAppNames, completeRefs, decodeSegment } from './candidates.js';
import { invalid, toMcpError } from './errors.js';

export const APPS_URI = 'axpage://apps';
export const ARTIFACTS_URI = 'axpage://artifacts';
export const STATUS_URI = 'axpage://status';
export const APP_TREE = 'axpage://app/{name}/tree';
export const APP_WINDOWS = 'axpage://app/{name}/windows';
export const APP_ELEMENT = 'axpage://app/{name}/element/{ref}';

const JSON_MIME = 'application/json';

export function artifactDirOf(pipeline: Pipeline): string {
  return resolveArtifactDir({ ...process.env, AXPAGE_OUT: pipeline.config.outDir });
}

/**
 * Runs a tool's handler for a resource read as the server runs a call (the same context,
 * recorded in the session log like one).
 */
// Tools differ in input type; the caller takes any of them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ToolRunner = (tool: ToolDefinition<any>, args: unknown) => Promise<ToolResponse>;

export function registerResources(server: McpServer, pipeline: Pipeline, run: ToolRunner): void {
  const dir = artifactDirOf(pipeline);
  const appName = (value: string) => completeAppNames(pipeline, value);

  server.registerResource(
    'artifacts',
    ARTIFACTS_URI,
    { description: 'Recent tree+screenshot pairs, newest first (bounded).', mimeType: JSON_MIME },
    async (uri) => json(uri.href, await artifactIndex(dir)),
  );

  server.registerResource(
    'pair',
    new ResourceTemplate('axpage://pair/{id}', { list: undefined }),
    { description: 'One pair by id: its tree text and its PNG.', mimeType: 'text/plain' },
    async (uri, { id }) => readPair(dir, uri.href, String(id)),
  );

  server.registerResource(
    'apps',
    APPS_URI,
    {
      description: 'Running accessible apps: name, pid, windows. Subscribable.',
      mimeType: JSON_MIME,
    },
    async (uri) => json(uri.href, await runningApps(pipeline)),
  );

  server.registerResource(
    'status',
    STATUS_URI,
    { description: 'Accessibility, bus and display status.', mimeType: JSON_MIME },
    async (uri) => json(uri.href, await pipeline.accessReport()),
  );

  server.registerResource(
    'app-tree',
    new ResourceTemplate(APP_TREE, { list: undefined, complete: { name: appName } }),
    {
      description: "A fresh walk of an app (writes a pair): the tree file's text. Subscribable.",
      mimeType: 'text/plain',
    },
    async (uri, { name }) => {
      const response = await runTool(pipeline, run, getTree, {
        app: decodeSegment(String(name)),
      });
      const file = String(response.structured.file);
      const text = await readPairFile(path.dirname(file), path.basename(file));
      if (text === undefined) {
        throw invalid(`the tree file ${file} cannot be read back; read the app-tree again`);
      }
      return {
        contents: [{ uri: uri.href, mimeType: 'text/plain', text: text.toString('utf8') }],
      };
    },
  );

  server.registerResource(
    'app-windows',
    new ResourceTemplate(APP_WINDOWS, { list: undefined, complete: { name: appName } }),
    { description: "An app's windows and dialogs. Subscribable.", mimeType: JSON_MIME },
    async (uri, { name }) => {
      const response = await runTool(pipeline, run, listWindows, {
        app: decodeSegment(String(name)),
      });
      return json(uri.href, {
        app: response.structured.app,
        pid: response.structured.pid,
        windows: response.structured.windows,
      });
    },
  );

  server.registerResource(
    'app-element',
    new ResourceTemplate(APP_ELEMENT, {
      list: undefined,
      complete: {
        name: appName,
        ref: (value, context) => completeRefs(pipeline, value, context?.arguments?.name),
      },
    }),
    {
      description: 'Attributes of one element by ref (password values masked).',
      mimeType: JSON_MIME,
    },
    async (uri, { name, ref }) => {
      const response = await runTool(pipeline, run, getAttributes, {
        app: decodeSegment(String(name)),
        ref: String(ref),
      });
      return json(uri.href, {
        ref: response.structured.element_ref,
        app: response.structured.app,
        pid: response.structured.pid,
        attributes: response.structured.attributes,
      });
    },
  );
}

/**
 * A tool's handler run for a resource, under the same policy as the tool (a mode or a
 * deny list that hides the tool hides its resource too); its failure becomes an MCP error
 * with the same advice.
 */
async function runTool<Input extends z.ZodObject>(
  pipeline: Pipeline,
  run: ToolRunner,
  tool: ToolDefinition<Input>,
  args: z.infer<Input>,
): Promise<ToolResponse> {
  if (!pipeline.policy.toolListed(tool)) {
    throw invalid(`this server's settings do not allow ${tool.name}, so neither its resource`);
  }
  // Checked like a tool call's arguments, before anything is read.
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    throw invalid(
      `bad ${tool.name} arguments: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
    );
  }
  let response: ToolResponse;
  try {
    response = await run(tool, parsed.data);
  } catch (err) {
    throw toMcpError(err);
  }
  if (response.isError) throw invalid(String(response.structured.error ?? 'the read failed'));
  return response;
}

function json(uri: string, value: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: JSON_MIME, text: JSON.stringify(value, null, 1) }] };
}

async function runningApps(pipeline: Pipeline) {
  try {
    const desktop = await pipeline.desktop();
    const [all, listed] = await Promise.all([
      desktop.listApps(),
      desktop.listWindows().catch(() => []),
    ]);
    // Apps the deny list names, and their windows, are left out: counted, never named.
    const { apps, leftOut } = await pipeline.denied.visibleApps(desktop, all);
    const windows = await pipeline.denied.visibleWindows(desktop, listed);
    return {
      ...(leftOut > 0 ? { left_out: leftOut } : {}),
      apps: apps.map((a) => ({
        name: a.name,
        pid: a.pid,
        windows: a.windows,
        window_titles: windows.filter((w) => w.pid === a.pid).map((w) => w.title),
        frontmost: a.active,
        responding: a.responding !== false,
      })),
    };
  } catch (err) {
    throw toMcpError(err);
  }
}

export async function artifactIndex(dir: string) {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const entries: DirEntry[] = [];
  await Promise.all(
    names
      .filter((n) => parseArtifactFile(n) !== null)
      .map(async (name) => {
        // Not followed: a link planted under a pair's name is no pair (see openPairFile).
        const stat = await fs.lstat(path.join(dir, name)).catch(() => undefined);
        if (stat?.isFile() && stat.nlink === 1) entries.push({ name, bytes: stat.size });
      }),
  );
  const pairs = groupPairs(entries);
  const facts = new Map<string, { app?: string; pid?: number }>();
  await Promise.all(
    pairs
      .slice(0, INDEX_LIMIT)
      .map(async (p) => facts.set(p.id, p.tree ? headerFacts(await firstLine(dir, p)) : {})),
  );
  return buildIndex(dir, pairs, (p) => facts.get(p.id) ?? {});
}

async function firstLine(dir: string, pair: PairFiles): Promise<string> {
  const handle = await openPairFile(dir, pair.tree!.name);
  if (!handle) return '';
  try {
    const buf = Buffer.alloc(512);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString('utf8').split('\n')[0];
  } finally {
    await handle.close();
  }
}

/** One file of a pair (`<id>.txt`, `.png`, `.diff.png`, `.marks.png`), as a result links it. */
async function readPairPart(
  dir: string,
  name: string,
  part: PairPart,
): Promise<ReadResourceResult> {
  const bytes = await readPairFile(dir, name);
  if (bytes === undefined) {
    throw invalid(
      `no file ${name} in ${dir} (it may have been pruned by retention); read ${ARTIFACTS_URI} for the recent pairs`,
    );
  }
  const uri = pairUri(name);
  return {
    contents: [
      part === '.txt'
        ? { uri, mimeType: 'text/plain', text: bytes.toString('utf8') }
        : { uri, mimeType: 'image/png', blob: bytes.toString('base64') },
    ],
  };
}

async function readPair(dir: string, uri: string, id: string): Promise<ReadResourceResult> {
  const one = splitPairPart(id);
  if (one) return readPairPart(dir, id, one.part);
  // The id must be one of our pair names: nothing else in (or outside) the dir is served.
  if (parseArtifactFile(`${id}.txt`) === null) {
    throw invalid(
      `'${id}' is not a pair id (ids look like 1732441234567_get_tree); read ${ARTIFACTS_URI} for the recent ones`,
    );
  }
  // Read as the viewer reads: a link planted under a pair's name is not there.
  const [tree, png] = await Promise.all([
    readPairFile(dir, `${id}.txt`),
    readPairFile(dir, `${id}.png`),
  ]);
  const text = tree?.toString('utf8');
  if (text === undefined && png === undefined) {
    throw invalid(
      `no pair ${id} in ${dir} (it may have been pruned by retention); read ${ARTIFACTS_URI} for the recent ones`,
    );
  }
  const contents: ReadResourceResult['contents'] = [];
  if (text !== undefined) contents.push({ uri: pairUri(id), mimeType: 'text/plain', text });
  if (png !== undefined) {
    contents.push({
      uri: `${pairUri(id)}.png`,
      mimeType: 'image/png',
      blob: png.toString('base64'),
    });
  }
  return { contents };
}
