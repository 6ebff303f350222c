/**
 * Fields once seen as password fields stay secret. An app can turn a password field into
 * plain text ("Show passphrase": GTK gives the entry the plain text role, and its text is
 * then read like any other): the field is remembered by its identity in its app (element
 * id, per pid, while the app lives), and from then on it is a password field to everyone:
 * its text is dropped from every walk and fresh read, readers are told it is one, and every
 * capture fills it.
 *
 * The memory is the app process's, not the session's nor the server's: whether a field holds
 * a secret is a fact about the app. A store (the platform's: the desktop's own) keeps it for
 * every other server on the same desktop, running now or started later (an app can reveal
 * the field while no server runs, or between two servers). A store that fails never takes
 * anything from this process's memory: the field stays secret here, the failure is reported,
 * and what was not saved is saved again at the next look.
 */
import type { Element, Snapshot } from '../model/element.js';
import type { Desktop, SecretFieldStore, SecureFieldScan } from '../platform/desktop.js';
import type { Rect } from '../model/element.js';
import { SECURE_MASK } from '../tree/text.js';
import { withOverrides } from './desktop-view.js';

/** What failed of a store: taking in what others saved, or saving what this process learned. */
export type StoreOperation = 'load' | 'save';

export class SecretFields {
  /** pid → ids of its elements seen as password fields. */
  private readonly byPid = new Map<number, Set<string>>();
  /** Pids with ids the store has not taken yet (their save failed). */
  private readonly unsaved = new Set<number>();
  private store?: SecretFieldStore;
  private onStoreError?: (err: unknown, op: StoreOperation) => void;

  /**
   * Keeps the memory in `store` too: every look first takes in what other servers learned,
   * and every id learned is saved. Nothing is read before the first look (a server that
   * never reads an app never touches the store). `onError` hears of every failure.
   */
  persistIn(store: SecretFieldStore, onError?: (err: unknown, op: StoreOperation) => void): void {
    this.store = store;
    this.onStoreError = onError;
  }

  /** Remembers `ids` of `pid` as password fields (ids the platform has none for are skipped). */
  learn(pid: number, ids: Iterable<string>): void {
    if (!this.add(pid, ids) || !this.store) return;
    this.unsaved.add(pid);
    this.flush();
  }

  /** Saves what the store has not taken yet; kept for the next try when it fails. */
  private flush(): void {
    const store = this.store;
    if (!store || this.unsaved.size === 0) return;
    const byPid = new Map<number, Iterable<string>>();
    for (const pid of this.unsaved) {
      const known = this.byPid.get(pid);
      if (known) byPid.set(pid, known);
    }
    this.guard('save', () => {
      store.save(byPid);
      this.unsaved.clear();
    });
  }

  /** Adds to the memory; whether any id was new. */
  private add(pid: number, ids: Iterable<string>): boolean {
    let known = this.byPid.get(pid);
    let added = false;
    for (const id of ids) {
      if (id === '' || known?.has(id)) continue;
      if (!known) this.byPid.set(pid, (known = new Set()));
      known.add(id);
      added = true;
    }
    return added;
  }

  /** Takes in what other servers on the desktop learned since the last look. */
  private refresh(): void {
    const store = this.store;
    if (!store) return;
    this.flush();
    this.guard('load', () => {
      for (const [pid, ids] of store.loadIfChanged() ?? []) this.add(pid, ids);
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

  /** The remembered ids, per pid (for a capture's lookup). */
  remembered(): ReadonlyMap<number, readonly string[]> {
    this.refresh();
    return new Map([...this.byPid].map(([pid, ids]) => [pid, [...ids]]));
  }

  /** The app exited: its ids mean nothing any more. */
  forget(pid: number): void {
    this.byPid.delete(pid);
    this.unsaved.delete(pid);
  }

  /**
   * Learns the password fields of a walk and makes every remembered one a password field in
   * it again (in place: the walk is fresh and nobody else holds it yet).
   */
  keep(snapshot: Snapshot): Snapshot {
    this.refresh();
    this.learn(
      snapshot.pid,
      snapshot.elements.filter((e) => e.flags.includes('secure')).map((e) => e.id),
    );
    const known = this.byPid.get(snapshot.pid);
    if (!known) return snapshot;
    snapshot.elements.forEach((el, i) => {
      if (known.has(el.id)) snapshot.elements[i] = asSecret(el);
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
    for (const ids of this.byPid.values()) if (ids.has(id)) return true;
    return false;
  }

  /** One element read fresh, kept secret the same way. */
  keepElement(element: Element): Element {
    return this.has(element.id) ? asSecret(element) : element;
  }
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
export function keepingSecrets(desktop: Desktop, fields: SecretFields = secretFields): Desktop {
  const overrides: Partial<Desktop> = {
    snapshot: async (pid, options) => fields.keep(await desktop.snapshot(pid, options)),
    readText: async (id) => (fields.has(id) ? undefined : desktop.readText(id)),
    readElement: async (id) => fields.keepElement(await desktop.readElement(id)),
    secureFieldFrames: async (region: Rect, timeoutMs, skip, extra) => {
      const scan: SecureFieldScan = await desktop.secureFieldFrames(
        region,
        timeoutMs,
        skip,
        extra ?? fields.remembered(),
      );
      for (const app of scan.fresh) if (app.ids) fields.learn(app.pid, app.ids);
      return scan;
    },
  };
  return withOverrides(desktop, overrides);
}
