/**
 * The server's own session and the desktop clipboard. ax_session_info reads the session
 * recorder (the one place calls are counted). The clipboard is two tools rather than one
 * with an action argument: reading changes nothing and stays listed in read-only mode,
 * while writing replaces what other apps paste, and is guarded and audited as an action.
 */
import { z } from 'zod';
import { AxError } from '../errors.js';
import { defineTool } from './define.js';

/** Longest text ax_clipboard_write puts on the clipboard. */
const MAX_WRITE_CHARS = 1_000_000;
/** Characters of the clipboard the summary line shows (its cap is 200; structuredContent has more). */
const SHOWN_CHARS = 150;
/** Apps ax_session_info's summary line names (structuredContent has them all). */
const SHOWN_APPS = 3;

export const sessionInfo = defineTool({
  name: 'ax_session_info',
  title: 'Session info',
  description:
    'This server session: apps and aliases, recent tree files, settings, uptime, call counters.',
  kind: 'read',
  input: z.object({}),
  output: z.object({
    uptime_s: z.number(),
    calls: z.number(),
    errors: z.number(),
    summary_bytes: z.number(),
    apps: z.array(z.object({ pid: z.number(), name: z.string(), alias: z.string().optional() })),
    recent_files: z.array(z.string()),
    session_log: z.string(),
    settings: z.record(z.string(), z.unknown()),
    /** Actions remembered for ax_undo and workflow rollback (reversible or not). */
    undo_entries: z.number(),
  }),
  async handle(_args, { pipeline, call, session }) {
    const counts = session.counters();
    const uptimeS = Math.round((Date.now() - session.startedAt.getTime()) / 1000);
    const apps = [...session.appsSeen()].map(([pid, name]) => ({
      pid,
      name,
      alias: pipeline.apps.aliasOf(pid),
    }));
    const { config } = pipeline;
    const policy = pipeline.policy.settings;
    const settings = {
      mode: policy.mode,
      screenshots: config.screenshots,
      visible: config.visible,
      out: session.dir,
      tools: [...policy.allowTools, ...policy.denyTools.map((t) => `-${t}`)],
      record_text: config.recordText,
    };
    const recent = session.recentPairs();
    const named = apps
      .slice(0, SHOWN_APPS)
      .map((a) => `${a.name} (pid ${a.pid}${a.alias ? `, alias ${a.alias}` : ''})`);
    if (apps.length > SHOWN_APPS) named.push(`+${apps.length - SHOWN_APPS} more`);
    // The one summary line is capped at 200 chars: the counters and apps first; the
    // settings, recent files and the log's path are in structuredContent.
    return pipeline.report(call, {
      did: [
        `Up ${formatUptime(uptimeS)}, ${counts.calls} calls before this (${counts.errors} errors, ${counts.summary_bytes} summary bytes)`,
        `mode ${settings.mode}`,
        `apps: ${named.length > 0 ? named.join(', ') : 'none yet'}`,
      ].join('; '),
      extra: {
        uptime_s: uptimeS,
        calls: counts.calls,
        errors: counts.errors,
        summary_bytes: counts.summary_bytes,
        apps,
        recent_files: recent,
        undo_entries: pipeline.journal.size,
        session_log: session.file,
        settings,
      },
    });
  },
});

export const clipboardRead = defineTool({
  name: 'ax_clipboard_read',
  title: 'Read the clipboard',
  description: 'Read the clipboard text. Text copied from a password field comes back masked.',
  kind: 'read',
  input: z.object({}),
  output: z.object({
    text: z.string().optional(),
    length: z.number(),
    masked: z.string().optional(),
  }),
  async handle(_args, { pipeline, call, session, clipboard }) {
    // Kept empty beside a password field (safe mode): the agent's own text is what it reads.
    await pipeline.releaseHeldSelections();
    const text = await (await clipboard()).read();
    const length = [...text].length;
    const secret = await session.clipboardSecretNow(text);
    if (secret !== undefined) {
      return pipeline.report(call, {
        did: `The clipboard holds ${length} chars, masked: ${secret}`,
        extra: { length, masked: secret },
      });
    }
    return pipeline.report(call, {
      did:
        length === 0
          ? 'The clipboard holds no text'
          : `The clipboard holds ${length} chars: ${quoted(text)}`,
      extra: { text, length },
    });
  },
});

export const clipboardWrite = defineTool({
  name: 'ax_clipboard_write',
  title: 'Write the clipboard',
  description: 'Put text on the clipboard for apps to paste; never logged.',
  kind: 'idempotent-action',
  input: z.object({ text: z.string().describe('Text to put there.') }),
  output: z.object({ length: z.number() }),
  async handle(args, { pipeline, call, session, clipboard }) {
    if (args.text.length > MAX_WRITE_CHARS) {
      throw new AxError(
        'bad_argument',
        `text is ${args.text.length} chars, more than the ${MAX_WRITE_CHARS} the clipboard takes here`,
        'Pass a shorter text',
      );
    }
    await pipeline.readyToAct();
    // What was kept empty beside a password field is given back first, so that giving it
    // back later cannot overwrite this text.
    await pipeline.releaseHeldSelections();
    await (await clipboard()).write(args.text);
    session.clipboardWritten();
    const length = [...args.text].length;
    return pipeline.report(call, {
      did: `Put ${length} chars on the clipboard`,
      extra: { length },
    });
  },
});

/** The text on one line, capped: newlines and tabs shown escaped. */
function quoted(text: string): string {
  const chars = [...text];
  const shown = chars
    .slice(0, SHOWN_CHARS)
    .join('')
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t');
  return `'${shown}'${chars.length > SHOWN_CHARS ? '…' : ''}`;
}

function formatUptime(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60}s`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

export const sessionTools = [sessionInfo, clipboardRead, clipboardWrite];
