/**
 * Where the memory of password fields outlives the server: a property of the X display's
 * root window, _AXPAGE_SECRET_FIELDS. The fields are the display's apps', so the memory is
 * the display's: every server on it knows a field that an earlier or a concurrent one saw as
 * a password field before the app revealed it, whatever its environment says (a runtime dir
 * or a temp dir of its own, or none), and the memory lives exactly as long as the X server
 * and its apps. No directory can be missing, full, or another one.
 *
 * The property holds JSON: per pid, the process's start time (/proc starttime) and the ids
 * of its fields, never their text. A reused pid never inherits another process's ids: an
 * entry counts only while its pid runs with the start time recorded, and every save drops
 * the entries of processes that are gone. A save reads, merges and writes under a server
 * grab, so servers saving at once never lose each other's ids.
 *
 * Every client of the display can read and change the property, as it can read the screen
 * and the apps' trees: it holds nothing such a client cannot learn by itself.
 */
import type { SecretFieldStore } from '../desktop.js';
import { procStat } from './proc.js';
import { openRootProperty, type RootProperty } from './x11.js';

export const SECRET_FIELDS_PROPERTY = '_AXPAGE_SECRET_FIELDS';

const VERSION = 1;

/** One process's remembered fields, with its start time to tell a reused pid apart. */
export interface SecretFieldEntry {
  start: number;
  ids: string[];
}

/** When a process started (any clock, as long as it is the same for everyone), or undefined when it is gone. */
export type StartOf = (pid: number) => number | undefined;

const startFromProc: StartOf = (pid) => procStat(pid)?.start;

/**
 * The entries of `text` whose process still runs with the start time recorded; anything
 * unreadable counts as nothing remembered.
 */
export function decodeSecretFields(text: string, startOf: StartOf): Map<number, SecretFieldEntry> {
  const out = new Map<number, SecretFieldEntry>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return out;
  }
  const apps = (parsed as { apps?: unknown } | null)?.apps;
  if (typeof apps !== 'object' || apps === null || Array.isArray(apps)) return out;
  for (const [key, value] of Object.entries(apps as Record<string, unknown>)) {
    const pid = Number(key);
    const e = value as Partial<SecretFieldEntry> | null;
    if (!Number.isInteger(pid) || pid <= 0 || typeof e?.start !== 'number') continue;
    if (!Array.isArray(e.ids) || startOf(pid) !== e.start) continue;
    const ids = e.ids.filter((id): id is string => typeof id === 'string' && id !== '');
    if (ids.length > 0) out.set(pid, { start: e.start, ids });
  }
  return out;
}

/**
 * `entries` with the ids of `byPid` added, for the processes running now. A pid whose
 * process started at another time than its entry says is another process: it starts afresh.
 */
export function mergeSecretFields(
  entries: ReadonlyMap<number, SecretFieldEntry>,
  byPid: ReadonlyMap<number, Iterable<string>>,
  startOf: StartOf,
): Map<number, SecretFieldEntry> {
  const out = new Map([...entries].map(([pid, e]) => [pid, { start: e.start, ids: [...e.ids] }]));
  for (const [pid, ids] of byPid) {
    const start = startOf(pid);
    if (start === undefined) continue;
    const known = out.get(pid);
    const merged = new Set(known?.start === start ? known.ids : []);
    for (const id of ids) if (id !== '') merged.add(id);
    if (merged.size > 0) out.set(pid, { start, ids: [...merged] });
  }
  return out;
}

export function encodeSecretFields(entries: ReadonlyMap<number, SecretFieldEntry>): string {
  const apps: Record<string, SecretFieldEntry> = {};
  for (const [pid, e] of entries) apps[String(pid)] = e;
  return JSON.stringify({ version: VERSION, apps });
}

export class SecretFieldProperty implements SecretFieldStore {
  private prop?: RootProperty;
  /** The property's text at the last load: the same text has nothing new. */
  private seen?: string;

  constructor(
    private readonly open: () => RootProperty,
    private readonly startOf: StartOf = startFromProc,
  ) {}

  loadIfChanged(): Map<number, string[]> | null {
    const text = this.property().read()?.toString('utf8') ?? '';
    if (text === this.seen) return null;
    const entries = decodeSecretFields(text, this.startOf);
    this.seen = text;
    return new Map([...entries].map(([pid, e]) => [pid, e.ids]));
  }

  /**
   * Adds `byPid`'s ids to the property, with what others saved kept. The text written is
   * not taken as seen: it holds others' ids that the next load must still hand over.
   */
  save(byPid: ReadonlyMap<number, Iterable<string>>): void {
    this.property().update((current) => {
      const before = current?.toString('utf8') ?? '';
      const entries = decodeSecretFields(before, this.startOf);
      const after = encodeSecretFields(mergeSecretFields(entries, byPid, this.startOf));
      return after === before ? undefined : Buffer.from(after, 'utf8');
    });
  }

  close(): void {
    this.prop?.close();
    this.prop = undefined;
  }

  /** The connection, opened again when the last one was lost (an error says why it cannot be). */
  private property(): RootProperty {
    if (this.prop?.usable) return this.prop;
    this.close();
    this.prop = this.open();
    return this.prop;
  }
}

/** The store on the X display of `env`. */
export function secretFieldProperty(env: NodeJS.ProcessEnv): SecretFieldProperty {
  return new SecretFieldProperty(() => {
    const display = env.DISPLAY;
    if (!display) {
      throw new Error(
        'DISPLAY is not set, and the memory of password fields lives on the X display',
      );
    }
    return openRootProperty(display, SECRET_FIELDS_PROPERTY);
  });
}
