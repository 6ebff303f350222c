/**
 * ax_undo: takes back the last action of this session that reached an app, by setting the
 * previous value (read before the action) back through the same delivery and verdict as
 * ax_set_value. The last action not being reversible is said plainly, never skipped over:
 * undoing an older action behind a key press would act on a state the agent did not see.
 */
import { z } from 'zod';
import { deliverSetValue } from '../actions/index.js';
import { AxError, PlatformError } from '../errors.js';
import type { ToolCall } from '../pipeline/notify.js';
import type { ActContext, Pipeline } from '../pipeline/pipeline.js';
import type { Detail } from '../pipeline/publish.js';
import type { ToolResponse } from '../pipeline/response.js';
import type { JournalEntry } from '../pipeline/undo.js';
import { defineTool } from './define.js';

/** Errors after which an entry can never be undone: its element or app is gone. */
const GONE = new Set(['stale_ref', 'element_gone', 'app_gone', 'app_not_found', 'unknown_ref']);

export const undo = defineTool({
  name: 'ax_undo',
  title: 'Undo',
  description: 'Undo the last set_value, type or toggle, or say why not.',
  kind: 'action',
  input: z.object({}),
  output: z.object({ undone: z.object({ tool: z.string(), did: z.string() }) }),
  async handle(_args, { pipeline, call }) {
    const entry = pipeline.journal.last();
    if (!entry) {
      throw new AxError(
        'unsupported',
        'nothing to undo: no action of this session has reached an app',
        'Undo takes back ax_set_value, ax_type and toggles of this session',
      );
    }
    return undoEntry(pipeline, call, entry);
  },
});

/** Reverses one journal entry (the last one, or a workflow's step on rollback). */
export async function undoEntry(
  pipeline: Pipeline,
  call: ToolCall,
  entry: JournalEntry,
  detail?: Detail,
): Promise<ToolResponse> {
  const reversal = entry.reversal;
  if (reversal.kind === 'none') {
    throw new AxError(
      'unsupported',
      `the last action cannot be undone: ${entry.tool} in ${entry.app} (${entry.did}): ${reversal.reason}`,
      'Nothing was changed. Reverse it by hand if needed',
      { not_undone: { tool: entry.tool, did: entry.did } },
    );
  }
  try {
    const response = await pipeline.act(call, {
      target: { kind: 'ref', ref: reversal.ref },
      detail,
      journal: false,
      perform: async (ctx) => {
        if (!ctx.target?.element) throw new AxError('stale_ref', `${reversal.label} is gone`);
        if (reversal.what === 'state') await assertToggled(ctx, ctx.target.element.id, entry);
        const done = await deliverSetValue(ctx, ctx.target, reversal.previous);
        return { ...done, did: `Undid ${entry.tool} (${entry.did}): ${lowerFirst(done.did)}` };
      },
      extra: () => ({ undone: { tool: entry.tool, did: entry.did } }),
    });
    pipeline.journal.remove(entry.seq);
    return response;
  } catch (err) {
    // Its element or app is gone: it can never be undone, and must not block the ones before.
    const code = err instanceof AxError || err instanceof PlatformError ? err.code : undefined;
    if (code !== undefined && GONE.has(code)) pipeline.journal.remove(entry.seq);
    throw err;
  }
}

/**
 * A toggle already back in its previous state did not stay toggled: a key that pops back
 * up (a calculator's) did something else with the click, and that cannot be reversed.
 */
async function assertToggled(ctx: ActContext, elementId: string, entry: JournalEntry) {
  const reversal = entry.reversal;
  if (reversal.kind !== 'restore') return;
  const now = (await ctx.desktop.readElement(elementId)).flags.includes('checked');
  if (String(now) === reversal.previous) {
    throw new AxError(
      'unsupported',
      `the last action cannot be undone: ${entry.tool} in ${entry.app} (${entry.did}) left ${reversal.label} ${now ? 'checked' : 'unchecked'} as it was, so what it did was not a toggle`,
      'Nothing was changed. Reverse it by hand if needed',
      { not_undone: { tool: entry.tool, did: entry.did } },
    );
  }
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

export const undoTools = [undo];
