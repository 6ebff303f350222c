/**
 * Where the memory of password fields outlives the server: a property of the X display's
 * root window, _AXPAGE_SECRET_FIELDS. The fields are the display's apps', so the memory is
 * the display's: every server on it knows a field that an earlier or a concurrent one saw as
 * a password field before the app revealed it, whatever its environment says (a runtime dir
 * or a temp dir of its own, or none), and the memory lives exactly as long as the X server
 * and its apps. No directory can be missing, full, or another one.
 *
 * The property holds JSON: per pid, the process's start time (/proc starttime), the ids
 * of its fields and, per id, what identifies the field apart from its id (its name, its
 * place on screen and in its window, its parent's and window's ids: see
 * model/field-succession.ts), never their text. A reused pid never inherits another process's ids: an
 * entry counts only while its pid runs with the start time recorded, and every save drops
 * the entries of processes that are gone. A save reads, merges and writes under a server
 * grab, so servers saving at once never lose each other's ids.
 *
 * Every client of the display can read and change the property, as it can read the screen
 * and the apps' trees: it holds nothing such a client cannot learn by itself.
 */
import type { Rect } from '../../model/element.js';
import {
  MAX_TRAIT_NAME,
  type FieldTraits,
  type RememberedField,
} from '../../model/field-succession.js';
import type { SecretFieldStore } from '../desktop.js';
import { procStat } from './proc.js';
import { openRootProperty, type RootProperty } from './x11.js';

export const SECRET_FIELDS_PROPERTY = '_AXPAGE_SECRET_FIELDS';

/**
 * The format's version. `traits` came later in the same version: a reader that does not
 * know it still reads the ids (and drops the traits when it saves: the next save of a
 * server that knows them puts them back).
 */
const VERSION = 1;

/** One process's remembered fields, with its start time to tell a reused pid apart. */
export interface SecretFieldEntry {
  start: number;
  ids: string[];
  /** Per id, what identifies the field apart from its id (see field-succession.ts). */
  traits?: Record<string, FieldTraits>;
}

/** When a process started (any clock, as long as it is the same for everyone), or undefined when it is gone. */
export type StartOf = (pid: number) => number | undefined;

const startFromProc: StartOf = (pid) => procStat(pid)?.start;

const isRect = (r: unknown): r is Rect => {
  const o = r as Partial<Rect> | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    [o.x, o.y, o.w, o.h].every((n) => typeof n === 'number' && Number.isFinite(n))
  );
};

/** Traits as read from the property: what is well formed of them, or undefined when nothing is. */
function decodeTraits(value: unknown): FieldTraits | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const t = value as Record<string, unknown>;
  const out: FieldTraits = {};
  if (typeof t.name === 'string' && t.name !== '') out.name = t.name.slice(0, MAX_TRAIT_NAME);
  for (const key of ['frame', 'spot'] as const) {
    const r = t[key];
    if (isRect(r)) out[key] = { x: r.x, y: r.y, w: r.w, h: r.h };
  }
  for (const key of ['parent', 'window'] as const) {
    const id = t[key];
    if (typeof id === 'string' && id !== '') out[key] = id;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The entries of `text` whose process still runs with the start time recorded; anything
 * unreadable counts as nothing remembered (and a trait that is not well formed as not known).
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
    if (ids.length === 0) continue;
    const entry: SecretFieldEntry = { start: e.start, ids };
    const given = e.traits as unknown;
    if (typeof given === 'object' && given !== null && !Array.isArray(given)) {
      const traits: Record<string, FieldTraits> = {};
      for (const id of ids) {
        const t = Object.hasOwn(given, id)
          ? decodeTraits((given as Record<string, unknown>)[id])
          : undefined;
        if (t) traits[id] = t;
      }
      if (Object.keys(traits).length > 0) entry.traits = traits;
    }
    out.set(pid, entry);
  }
  return out;
}

/** An entry's fields, each id with what is known of it. */
export function fieldsOfEntry(e: SecretFieldEntry): RememberedField[] {
  return e.ids.map((id) => ({ id, ...(e.traits?.[id] ?? {}) }));
}

/**
 * `entries` with the fields of `byPid` added, for the processes running now: what is given
 * of a field replaces what the entry says of it. A pid whose process started at another
 * time than its entry says is another process: it starts afresh.
 */
export function mergeSecretFields(
  entries: ReadonlyMap<number, SecretFieldEntry>,
  byPid: ReadonlyMap<number, Iterable<RememberedField>>,
  startOf: StartOf,
): Map<number, SecretFieldEntry> {
  const out = new Map(
    [...entries].map(([pid, e]) => [
      pid,
      { start: e.start, ids: [...e.ids], ...(e.traits ? { traits: { ...e.traits } } : {}) },
    ]),
  );
  for (const [pid, fields] of byPid) {
    const start = startOf(pid);
    if (start === undefined) continue;
    const known = out.get(pid);
    const same = known?.start === start;
    const ids = new Set(same ? known.ids : []);
    const traits: Record<string, FieldTraits> = { ...(same ? known.traits : {}) };
    for (const { id, ...given } of fields) {
      if (id === '') continue;
      ids.add(id);
      const t = decodeTraits({ ...traits[id], ...given });
      if (t) traits[id] = t;
    }
    if (ids.size === 0) continue;
    const entry: SecretFieldEntry = { start, ids: [...ids] };
    if (Object.keys(traits).length > 0) entry.traits = traits;
    out.set(pid, entry);
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

  loadIfChanged(): Map<number, RememberedField[]> | null {
    const text = this.property().read()?.toString('utf8') ?? '';
    if (text === this.seen) return null;
    const entries = decodeSecretFields(text, this.startOf);
    this.seen = text;
    return new Map([...entries].map(([pid, e]) => [pid, fieldsOfEntry(e)]));
  }

  /**
   * Adds `byPid`'s fields to the property, with what others saved kept. The text written is
   * not taken as seen: it holds others' fields that the next load must still hand over.
   */
  save(byPid: ReadonlyMap<number, Iterable<RememberedField>>): void {
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
