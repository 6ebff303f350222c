/**
 * Recording as resources (the design's ax_record: a state toggled by reads, not a tool):
 * reading `axpage://recording/start` starts recording the frontmost app (or `?app=NAME`,
 * `&limit_seconds=N`), `axpage://recording/status` says how it goes, and
 * `axpage://recording/stop` ends it and answers the ax_workflow steps.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import { getTree } from '../tools/observe.js';
import { Recorder } from '../record/recorder.js';
import { completeAppNames, decodeSegment } from './candidates.js';
import { invalid, toMcpError } from './errors.js';
import type { ToolRunner } from './resources.js';

export const RECORDING_START = 'axpage://recording/start';
export const RECORDING_STOP = 'axpage://recording/stop';
export const RECORDING_STATUS = 'axpage://recording/status';

/** One recorder per server (its pipeline): a second start while one runs is an error. */
const recorders = new WeakMap<Pipeline, Recorder>();

export function recorderOf(pipeline: Pipeline, run: ToolRunner): Recorder {
  let recorder = recorders.get(pipeline);
  if (!recorder) recorders.set(pipeline, (recorder = new Recorder(pipeline, run)));
  return recorder;
}

export function registerRecording(server: McpServer, pipeline: Pipeline, run: ToolRunner): void {
  const recorder = recorderOf(pipeline, run);
  const start = async (uri: URL, app?: unknown, limit?: unknown): Promise<ReadResourceResult> => {
    if (!pipeline.policy.toolListed(getTree)) {
      throw invalid(
        `this server's settings do not allow ${getTree.name}, which recording walks the app with`,
      );
    }
    let limitS: number | undefined;
    if (limit !== undefined) {
      limitS = Number(limit);
      if (!/^\s*\d+(\.\d+)?\s*$/.test(String(limit))) {
        throw invalid(`limit_seconds is a number of seconds, not '${String(limit)}'`);
      }
    }
    try {
      return json(
        uri.href,
        await recorder.start({
          ...(app !== undefined ? { app: decodeSegment(String(app)) } : {}),
          ...(limitS !== undefined ? { limitS } : {}),
        }),
      );
    } catch (err) {
      throw toMcpError(err);
    }
  };
  const description =
    'Start recording what a person does in an app (default frontmost; ?app=NAME&limit_seconds=N, default 600); stop gives ax_workflow steps.';
  server.registerResource(
    'recording-start',
    RECORDING_START,
    { description, mimeType: 'application/json' },
    (uri) => start(uri),
  );
  const appName = (value: string) => completeAppNames(pipeline, value);
  for (const [name, query] of [
    ['recording-start-app', '{?app}'],
    ['recording-start-limit', '{?limit_seconds}'],
    ['recording-start-app-limit', '{?app,limit_seconds}'],
  ] as const) {
    server.registerResource(
      name,
      new ResourceTemplate(`${RECORDING_START}${query}`, {
        list: undefined,
        ...(query.includes('app') ? { complete: { app: appName } } : {}),
      }),
      { description, mimeType: 'application/json' },
      (uri, vars) => start(uri, vars.app, vars.limit_seconds),
    );
  }
  server.registerResource(
    'recording-status',
    RECORDING_STATUS,
    {
      description: 'Whether a recording runs: app, seconds, events.',
      mimeType: 'application/json',
    },
    (uri) => json(uri.href, recorder.status()),
  );
  server.registerResource(
    'recording-stop',
    RECORDING_STOP,
    {
      description:
        'Stop the recording: its steps (valid ax_workflow input), password placeholders, and the pair of each step.',
      mimeType: 'application/json',
    },
    async (uri) => {
      try {
        return json(uri.href, await recorder.stop());
      } catch (err) {
        throw toMcpError(err);
      }
    },
  );
}

function json(uri: string, value: unknown): ReadResourceResult {
  return {
    contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 1) }],
  };
}
