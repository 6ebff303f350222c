/**
 * Oracles outside axpage for the e2e scenarios: what the app itself exposes, read by an
 * independent pyatspi script, what another process reads from the clipboard, and what the
 * screenshot's pixels show. A scenario checks an effect with these, never only with the
 * summary axpage returned.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { LaunchedApp } from '../../../src/desktop/apps.js';
import type { Session } from '../../../src/harness/session.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

export interface AtspiElement {
  role: string;
  name: string;
  states: string[];
  extents?: [number, number, number, number];
  text?: string;
  /** Where the caret is in `text` (an offset in characters), when it has text. */
  caret?: number;
  value?: number;
}

export interface ReadOptions {
  /** Read the rows and cells of tables and trees too (atspi_read.py skips them by default). */
  cells?: boolean;
}

/** Every element of the app running as `pid`, read with pyatspi in the session's desktop. */
export async function readApp(
  session: Session,
  pid: number,
  opts: ReadOptions = {},
): Promise<AtspiElement[]> {
  const { stdout } = await run(
    '/usr/bin/python3',
    [path.join(here, 'atspi_read.py'), String(pid), ...(opts.cells ? ['--cells'] : [])],
    {
      env: session.desktop.processEnv() as Record<string, string>,
      timeout: 20_000,
      maxBuffer: 32 * 1024 * 1024,
    },
  );
  const parsed = JSON.parse(stdout) as AtspiElement[] | { error: string };
  if (!Array.isArray(parsed)) throw new Error(parsed.error);
  return parsed;
}

/**
 * The names of the app's top-level windows, and every element of the first one titled
 * `title` (none when it has no such window), read with pyatspi: quick where the app's
 * other windows are big.
 */
export async function readWindow(
  session: Session,
  pid: number,
  title: string,
): Promise<{ windows: string[]; elements: AtspiElement[] }> {
  const { stdout } = await run(
    '/usr/bin/python3',
    [path.join(here, 'atspi_window.py'), String(pid), title],
    {
      env: session.desktop.processEnv() as Record<string, string>,
      timeout: 20_000,
      maxBuffer: 8 * 1024 * 1024,
    },
  );
  const parsed = JSON.parse(stdout) as
    { windows: string[]; elements: AtspiElement[] } | { error: string };
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

/**
 * The `nth` element (from 0) of role `role` (an AT-SPI role name: "check box") of the app
 * running as `pid`, in depth-first order, and how many it has: read with pyatspi, one
 * element described, so quick on an app of a thousand elements. `name`: only elements
 * of that role with that accessible name count.
 */
export async function readNth(
  session: Session,
  pid: number,
  role: string,
  nth: number,
  name?: string,
): Promise<{ count: number; element: AtspiElement | null }> {
  const { stdout } = await run(
    '/usr/bin/python3',
    [
      path.join(here, 'atspi_nth.py'),
      String(pid),
      role,
      String(nth),
      ...(name !== undefined ? [name] : []),
    ],
    {
      env: session.desktop.processEnv() as Record<string, string>,
      timeout: 60_000,
      maxBuffer: 1024 * 1024,
    },
  );
  const parsed = JSON.parse(stdout) as
    { count: number; element: AtspiElement | null } | { error: string };
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

/** Polls the app until `pick` returns something (bounded), and returns it. */
export async function waitForApp<T>(
  session: Session,
  pid: number,
  pick: (elements: AtspiElement[]) => T | undefined,
  what: string,
  timeoutMs = 30_000,
  opts: ReadOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = await readApp(session, pid, opts);
    const got = pick(last);
    if (got !== undefined) return got;
    if (Date.now() > deadline) {
      throw new Error(
        `pyatspi never saw ${what} within ${timeoutMs} ms; named elements: ` +
          JSON.stringify(
            last
              .filter((e) => e.name || e.text)
              .slice(0, 60)
              .map((e) => `${e.role} ${JSON.stringify(e.name)} ${JSON.stringify(e.text ?? '')}`),
          ),
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The CLIPBOARD selection's text as another X client (xclip) reads it; '' only when no
 * owner offers text (xclip's "target STRING not available"). Any other failure (no
 * display, xclip missing or killed) throws: an oracle that cannot read must not answer
 * "empty".
 */
export async function readClipboard(session: Session): Promise<string> {
  try {
    const { stdout } = await run('xclip', ['-o', '-selection', 'clipboard'], {
      env: session.desktop.processEnv() as Record<string, string>,
      timeout: 20_000,
    });
    return stdout;
  } catch (err) {
    const e = err as { code?: unknown; stderr?: string; killed?: boolean };
    if (e.code === 1 && !e.killed && /target \S+ not available/.test(e.stderr ?? '')) return '';
    throw new Error(`xclip -o could not read the clipboard: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** The JSON events a fixture printed; throws when its stdout is not piped to us. */
function eventStream(app: LaunchedApp): Array<Record<string, unknown>> {
  if (!app.output) {
    throw new Error(
      `pid ${app.pid} (${app.name}) has no output stream to read events from: ` +
        "launch it with stdio: 'pipe' (launchFixture does)",
    );
  }
  return app.output.events;
}

/** The events a fixture printed, from index `from` on (its own JSON lines). */
export function eventsOf(app: LaunchedApp, from = 0): Array<Record<string, unknown>> {
  return eventStream(app).slice(from);
}

/** How many events a fixture has printed so far: pass it as `from` before acting. */
export function mark(app: LaunchedApp): number {
  return eventStream(app).length;
}

/**
 * Resolves once `app`'s main loop has answered a full pyatspi read started now (one round
 * trip per element): input sent to it before (X events, AT-SPI actions, idle handlers
 * they queued) has been handled, and the events it printed for them are in its output.
 * The barrier before asserting that something did NOT happen: it waits on the app, not
 * on a clock, so a busy machine only makes it slower.
 */
export async function settled(session: Session, app: LaunchedApp): Promise<void> {
  await readApp(session, app.pid);
  // The fixture wrote its lines before answering; let this process read its pipe.
  await new Promise((r) => setImmediate(r));
}

/**
 * Reads `read` until two reads in a row agree (an animation or a kinetic scroll has come
 * to rest), and returns that value; bounded, with the last two reads in the error.
 */
export async function steady<T>(
  what: string,
  read: () => Promise<T>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  for (;;) {
    const next = await read();
    if (JSON.stringify(next) === JSON.stringify(last)) return next;
    if (Date.now() > deadline) {
      throw new Error(
        `${what} never came to rest within ${timeoutMs} ms: ${JSON.stringify([last, next])}`,
      );
    }
    last = next;
  }
}

/** The tree file's `# viewport: x,y wxh` header: where the screenshot sits on the screen. */
export function viewportOf(treeFile: string): { x: number; y: number; w: number; h: number } {
  const m = /# viewport: (-?\d+),(-?\d+) (\d+)x(\d+)/.exec(fs.readFileSync(treeFile, 'utf8'));
  if (!m) throw new Error(`no viewport header in ${treeFile}`);
  return { x: Number(m[1]), y: Number(m[2]), w: Number(m[3]), h: Number(m[4]) };
}

/**
 * How many distinct colours the screenshot shows inside a screen rectangle (clipped to the
 * PNG): 1 means a flat area, text or widgets drawn there give many.
 */
export async function coloursIn(
  png: string,
  viewport: { x: number; y: number },
  rect: [number, number, number, number],
): Promise<number> {
  const img = sharp(png);
  const meta = await img.metadata();
  const left = Math.max(0, Math.round(rect[0] - viewport.x));
  const top = Math.max(0, Math.round(rect[1] - viewport.y));
  const width = Math.min((meta.width ?? 0) - left, Math.round(rect[2]));
  const height = Math.min((meta.height ?? 0) - top, Math.round(rect[3]));
  if (width <= 0 || height <= 0) return 0;
  const { data, info } = await img
    .extract({ left, top, width, height })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const seen = new Set<number>();
  for (let i = 0; i < data.length; i += info.channels) {
    seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
  }
  return seen.size;
}
