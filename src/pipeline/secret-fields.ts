/**
 * Fields once seen as password fields stay secret. An app can turn a password field into
 * plain text ("Show passphrase": GTK gives the entry the plain text role, and its text is
 * then read like any other): the field is remembered by its identity in its app (element
 * id, per pid, while the app lives), and from then on it is a password field to everyone:
 * its text is dropped from every walk and fresh read, readers are told it is one, and every
 * capture fills it. An app may also build the field anew as it shows it (a web page's input
 * turned to type=text in Firefox, or replaced by a new input in any browser): a new element
 * with a new id. So each field is remembered with what identifies it apart from its id
 * (name, place, parent, window; never its text), and a field that succeeds a missing one
 * (see field-succession.ts) is the same password field.
 *
 * The memory is the app process's, not the session's nor the server's: whether a field holds
 * a secret is a fact about the app. A store (the platform's: the desktop's own) keeps it for
 * every other server on the same desktop, running now or started later (an app can reveal
 * the field while no server runs, or between two servers). A store that fails never takes
 * anything from this process's memory: the field stays secret here, the failure is reported,
 * and what was not saved is saved again at the next look.
 */
import type { Element, Rect, Snapshot, SnapshotLimits } from '../model/element.js';
import {
  sameSpot,
  sameTraits,
  succeeds,
  takesText,
  traitNameOf,
  traitsIn,
  type FieldTraits,
  type RememberedField,
} from '../model/field-succession.js';
import type {
  Desktop,
  SecretFieldStore,
  SecureFieldScan,
  SnapshotOptions,
} from '../platform/desktop.js';
import { SECURE_MASK } from '../tree/text.js';
import { withOverrides } from './desktop-view.js';
import { SecretEchoes } from './secrets.js';

/** What failed of a store: taking in what others saved, or saving what this process learned. */
export type StoreOperation = 'load' | 'save';

export class SecretFields {
  /** pid → its elements seen as password fields: id → what identifies it otherwise. */
  private readonly byPid = new Map<number, Map<string, FieldTraits>>();
  /** Pids with fields the store has not taken yet (their save failed, or they changed). */
  private readonly unsaved = new Set<number>();
  private store?: SecretFieldStore;
  private onStoreError?: (err: unknown, op: StoreOperation) => void;

  /**
   * Keeps the memory in `store` too: every look first takes in what other servers learned,
   * and every field learned is saved. Nothing is read before the first look (a server that
   * never reads an app never touches the store). `onError` hears of every failure.
   */
  persistIn(store: SecretFieldStore, onError?: (err: unknown, op: StoreOperation) => void): void {
    this.store = store;
    this.onStoreError = onError;
  }

  /**
   * Remembers these fields of `pid` as password fields (ids the platform has none for are
   * skipped), with what identifies them apart from their ids where given: what is given
   * replaces what was known of a field, the rest stays.
   */
  learn(pid: number, fields: Iterable<string | RememberedField>): void {
    if (!this.add(pid, fields, true)) return;
    if (!this.store) return;
    this.unsaved.add(pid);
    this.flush();
  }

  /** Saves what the store has not taken yet; kept for the next try when it fails. */
  private flush(): void {
    const store = this.store;
    if (!store || this.unsaved.size === 0) return;
    const byPid = new Map<number, RememberedField[]>();
    for (const pid of this.unsaved) {
      const known = this.byPid.get(pid);
      if (known) byPid.set(pid, fieldsOf(known));
    }
    this.guard('save', () => {
      store.save(byPid);
      this.unsaved.clear();
    });
  }

  /**
   * Adds to the memory; whether anything was new. `replace`: what is given of a known
   * field replaces what was known (a fresh look); else it only fills what was not known
   * (what another server saved, maybe long ago).
   */
  private add(pid: number, fields: Iterable<string | RememberedField>, replace: boolean): boolean {
    let known = this.byPid.get(pid);
    let changed = false;
    for (const given of fields) {
      const { id, ...traits } = typeof given === 'string' ? { id: given } : given;
      if (id === '') continue;
      if (!known) this.byPid.set(pid, (known = new Map()));
      const before = known.get(id);
      const after = before
        ? replace
          ? { ...before, ...traits }
          : { ...traits, ...before }
        : { ...traits };
      if (before && sameTraits(before, after)) continue;
      known.set(id, after);
      changed = true;
    }
    return changed;
  }

  /** Takes in what other servers on the desktop learned since the last look. */
  private refresh(): void {
    const store = this.store;
    if (!store) return;
    this.flush();
    this.guard('load', () => {
      for (const [pid, fields] of store.loadIfChanged() ?? []) {
        this.add(pid, fields, false);
        // A store that lost what identifies a field (a server that keeps ids only saved it
        // last) is told again at the next look.
        const known = this.byPid.get(pid);
        const bare = fields.some((f) => !hasTraits(f) && hasTraits(known?.get(f.id) ?? {}));
        if (bare) this.unsaved.add(pid);
      }
    });
  }

  private guard(op: StoreOperation, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.onStoreError?.(err, op);
    }
  }

  /** Whether `element` of app `pid` is, or once was, a password field. */
  isSecretField(pid: number, element: Pick<Element, 'id' | 'flags'>): boolean {
    if (element.flags.includes('secure')) return true;
    return element.id !== '' && (this.byPid.get(pid)?.has(element.id) ?? false);
  }

  /** The remembered fields, per pid (for a capture's lookup). */
  remembered(): ReadonlyMap<number, readonly RememberedField[]> {
    this.refresh();
    return new Map([...this.byPid].map(([pid, known]) => [pid, fieldsOf(known)]));
  }

  /** The app exited: its ids mean nothing any more. */
  forget(pid: number): void {
    this.byPid.delete(pid);
    this.unsaved.delete(pid);
  }

  /**
   * Learns the password fields of a walk and makes every remembered one a password field in
   * it again (in place: the walk is fresh and nobody else holds it yet). A remembered field
   * missing from the walk may have been built anew by its app (a new element, a new id): a
   * field of the walk that succeeds it (see field-succession.ts) is learned as the same
   * password field, in this very walk, before anything of the walk is shown.
   */
  keep(snapshot: Snapshot): Snapshot {
    this.refresh();
    const { pid, elements } = snapshot;
    const known = this.byPid.get(pid);
    const present = new Set(elements.map((e) => e.id));
    const missing = [...(known ?? [])].filter(([id]) => !present.has(id)).map(([, t]) => t);
    const learned: RememberedField[] = [];
    elements.forEach((el, i) => {
      if (el.id === '') return;
      const secret = el.flags.includes('secure') || (known?.has(el.id) ?? false);
      if (!secret && !(missing.length > 0 && takesText(el))) return;
      const traits = traitsIn(snapshot, i);
      if (secret || missing.some((gone) => succeeds(traits, gone))) {
        learned.push({ id: el.id, ...traits });
      }
    });
    this.learn(pid, learned);
    const ids = new Set(learned.map((f) => f.id));
    elements.forEach((el, i) => {
      if (ids.has(el.id)) elements[i] = asSecret(el);
    });
    return snapshot;
  }

  /**
   * Whether any app's remembered field has this id (an id names its app's connection too,
   * so no two apps share one).
   */
  has(id: string): boolean {
    if (id === '') return false;
    this.refresh();
    for (const known of this.byPid.values()) if (known.has(id)) return true;
    return false;
  }

  /**
   * Whether any field is remembered at all (a fresh read may then be one built anew), as of
   * the last look (`has` looks).
   */
  holdsAny(): boolean {
    for (const known of this.byPid.values()) if (known.size > 0) return true;
    return false;
  }

  /**
   * One element read fresh, kept secret the same way. A read stands alone (no parent, no
   * window): an element that takes text, with a remembered field's name, in its place, is
   * that field built anew, and learned as such.
   */
  keepElement(element: Element): Element {
    if (this.has(element.id)) return asSecret(element);
    if (element.id === '' || !takesText(element)) return element;
    const name = traitNameOf(element);
    const traits: FieldTraits = { ...(name === undefined ? {} : { name }) };
    if (element.frame) traits.frame = { ...element.frame };
    let found = false;
    for (const [pid, known] of this.byPid) {
      const same = [...known.values()].some(
        (gone) =>
          gone.name !== undefined && gone.name === name && sameSpot(traits.frame, gone.frame),
      );
      if (!same) continue;
      this.learn(pid, [{ id: element.id, ...traits }]);
      found = true;
    }
    return found ? asSecret(element) : element;
  }
}

/** A pid's remembered fields as a list. */
function fieldsOf(known: ReadonlyMap<string, FieldTraits>): RememberedField[] {
  return [...known].map(([id, traits]) => ({ id, ...traits }));
}

function hasTraits(f: FieldTraits): boolean {
  return (
    f.name !== undefined ||
    f.frame !== undefined ||
    f.spot !== undefined ||
    f.parent !== undefined ||
    f.window !== undefined
  );
}

/**
 * A revealed field as a password field: flagged secure, its text dropped, and its text
 * masked where it shows up in its name or description (a toolkit that names a text field by
 * its content).
 */
function asSecret(el: Element): Element {
  if (el.flags.includes('secure') && el.value === undefined) return el;
  const mask = (text: string | undefined): string | undefined =>
    text !== undefined && el.value ? text.split(el.value).join(SECURE_MASK) : text;
  const out: Element = {
    ...el,
    name: mask(el.name) ?? '',
    description: mask(el.description),
    flags: el.flags.includes('secure') ? el.flags : [...el.flags, 'secure'],
  };
  delete out.value;
  if (out.description === undefined) delete out.description;
  return out;
}

/** This process's memory of password fields. */
export const secretFields = new SecretFields();

/**
 * THE question the rest of the code asks: is this element of app `pid` a password field,
 * now or ever seen as one? Its text is then never read, shown, typed in the clear or
 * captured.
 */
export function isSecretField(pid: number, element: Pick<Element, 'id' | 'flags'>): boolean {
  return secretFields.isSecretField(pid, element);
}

/**
 * The desktop as every tool sees it: walks and fresh reads come back with remembered
 * password fields kept secret, their text is never read, and a capture's lookup locates
 * them along with the fields whose role still says so.
 */
export function keepingSecrets(
  desktop: Desktop,
  fields: SecretFields = secretFields,
  echoes: SecretEchoes = new SecretEchoes(),
  /** How the apps on a captured region are walked for echoes of a secret. */
  echoWalk: SnapshotLimits = ECHO_WALK,
): Desktop {
  const snapshot = async (pid: number, options: SnapshotOptions) =>
    withoutEchoes(fields.keep(await desktop.snapshot(pid, options)), fields, echoes);
  const overrides: Partial<Desktop> = {
    snapshot,
    readText: async (id) => {
      if (fields.has(id)) return undefined;
      // Another id may still be a remembered field built anew: its name and place tell.
      if (
        fields.holdsAny() &&
        fields.keepElement(await desktop.readElement(id)).flags.includes('secure')
      ) {
        return undefined;
      }
      const text = await desktop.readText(id);
      return text === undefined ? text : echoes.scrub(text);
    },
    readElement: async (id) => echoes.scrubDeep(fields.keepElement(await desktop.readElement(id))),
    elementDetails: async (id) => echoes.scrubDeep(await desktop.elementDetails(id)),
    listWindows: async (pid) => echoes.scrubDeep(await desktop.listWindows(pid)),
    frontmost: async () => echoes.scrubDeep(await desktop.frontmost()),
    secureFieldFrames: async (region: Rect, timeoutMs, skip, extra) => {
      const scan: SecureFieldScan = await desktop.secureFieldFrames(
        region,
        timeoutMs,
        skip,
        extra ?? fields.remembered(),
      );
      for (const app of scan.fresh) if (app.fields) fields.learn(app.pid, app.fields);
      if (echoes.size > 0) {
        await fillEchoingTitles(desktop, echoes, scan);
        await fillEchoes(
          scan,
          skip ?? [],
          (pid) => snapshot(pid, echoWalk),
          async (pid) =>
            (await desktop.listWindows(pid).catch(() => undefined))?.map((w) => w.outer ?? w.frame),
        );
      }
      return scan;
    },
  };
  if (desktop.runScript) {
    const run = desktop.runScript.bind(desktop);
    overrides.runScript = async (language, script) => echoes.scrub(await run(language, script));
  }
  return withOverrides(desktop, overrides);
}

/**
 * A walk made before a secret was known (a view kept for later reads and as the "before"
 * of the next diff) with it masked now, as a walk made from now on has it: in place.
 */
export function maskEchoesIn(
  snapshot: Snapshot,
  echoes: SecretEchoes,
  fields: SecretFields = secretFields,
): void {
  withoutEchoes(snapshot, fields, echoes);
}

/**
 * A walk with every known secret an app echoes masked (a label "No results for …", a list
 * row, a field the app filled from it): each element that held one is a password field
 * from then on, so captures fill it too. A window's title is masked, not the window: its
 * title bar is filled while the title holds one (fillEchoingTitles).
 */
function withoutEchoes(snapshot: Snapshot, fields: SecretFields, echoes: SecretEchoes): Snapshot {
  if (echoes.size === 0) return snapshot;
  const windows = new Set(snapshot.windows.map((w) => w.index));
  const learned: RememberedField[] = [];
  snapshot.elements.forEach((el, i) => {
    const texts = [el.name, el.value ?? '', el.description ?? ''];
    if (!texts.some((t) => echoes.holds(t))) return;
    const scrubbed = echoes.scrubDeep(el);
    if (windows.has(i)) {
      snapshot.elements[i] = scrubbed;
      return;
    }
    learned.push({ id: el.id, ...traitsIn(snapshot, i) });
    snapshot.elements[i] = asSecret(scrubbed);
  });
  snapshot.windows = echoes.scrubDeep(snapshot.windows);
  fields.learn(snapshot.pid, learned);
  return snapshot;
}

/** Walks of other apps for echoes: what a capture of them can wait for. */
const ECHO_WALK: SnapshotLimits = { maxElements: 5000, maxDepth: 60, timeBudgetMs: 2000 };

/**
 * The elements of every app read fresh for the capture that echo a known secret (an app
 * the secret was pasted into may show it in another app too, one never walked since): each
 * app is walked, which masks and learns them (withoutEchoes), and their frames are filled.
 * `skip`: apps whose walk the caller just made. An app whose walk fails is filled whole.
 */
async function fillEchoes(
  scan: SecureFieldScan,
  skip: readonly number[],
  walk: (pid: number) => Promise<Snapshot>,
  windowsOf: (pid: number) => Promise<Rect[] | undefined>,
): Promise<void> {
  await Promise.all(
    scan.fresh
      .filter((app) => !skip.includes(app.pid))
      .map(async (app) => {
        try {
          const walked = await walk(app.pid);
          if (walked.truncated !== null) {
            // What the walk did not reach may echo one: its windows are filled whole.
            scan.failed.push({
              pid: app.pid,
              reason: `its walk for echoes stopped short (${walked.truncated})`,
              windows: await windowsOf(app.pid),
            });
            return;
          }
          for (const el of walked.elements) {
            if (el.flags.includes('secure') && el.frame && el.frame.w > 0 && el.frame.h > 0) {
              app.frames.push(el.frame);
            }
          }
        } catch (err) {
          scan.failed.push({ pid: app.pid, reason: `its walk for echoes failed: ${String(err)}` });
        }
      }),
  );
}

/** The title bars of windows whose title holds a secret, as frames to fill, per app. */
async function fillEchoingTitles(
  desktop: Desktop,
  echoes: SecretEchoes,
  scan: SecureFieldScan,
): Promise<void> {
  const windows = await desktop.listWindows().catch(() => []);
  for (const w of windows) {
    if (!w.outer || !echoes.holds(w.title)) continue;
    // The decorations around the client area: the title is drawn there.
    const bar = { x: w.outer.x, y: w.outer.y, w: w.outer.w, h: Math.max(0, w.frame.y - w.outer.y) };
    if (bar.h === 0) continue;
    const app = scan.fresh.find((a) => a.pid === w.pid);
    if (app) app.frames.push(bar);
    else scan.fresh.push({ pid: w.pid, frames: [bar] });
  }
}
