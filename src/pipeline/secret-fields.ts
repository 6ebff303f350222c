/**
 * Fields once seen as password fields stay secret. An app can turn a password field into
 * plain text ("Show passphrase": GTK gives the entry the plain text role, and its text is
 * then read like any other): the field is remembered by its identity in its app (element
 * id, per pid, while the app lives), and from then on it is a password field to everyone:
 * its text is dropped from every walk and fresh read, readers are told it is one, and every
 * capture fills it.
 *
 * The memory is the app process's, not the session's nor the server's: whether a field holds
 * a secret is a fact about the app. A store keeps it for the next server on the same desktop
 * (an app can reveal the field while no server runs, or between two servers).
 */
import type { Element, Snapshot } from '../model/element.js';
import type { Desktop, SecureFieldScan } from '../platform/desktop.js';
import type { Rect } from '../model/element.js';
import { SECURE_MASK } from '../tree/text.js';
import { withOverrides } from './desktop-view.js';

/** Where the memory outlives this process (the platform's; ids of dead processes are its to drop). */
export interface SecretFieldStore {
  /** The ids remembered per live pid, or null when nothing changed since the last load or save. */
  loadIfChanged(): ReadonlyMap<number, readonly string[]> | null;
  /** Adds these ids to what the store holds. */
  save(byPid: ReadonlyMap<number, Iterable<string>>): void;
}

export class SecretFields {
  /** pid → ids of its elements seen as password fields. */
  private readonly byPid = new Map<number, Set<string>>();
  private store?: SecretFieldStore;
  private onStoreError?: (err: unknown) => void;

  /**
   * Keeps the memory in `store` too: loads what earlier servers learned, and saves every id
   * learned from now on. A store that fails leaves the memory of this process whole.
   */
  persistIn(store: SecretFieldStore, onError?: (err: unknown) => void): void {
    this.store = store;
    this.onStoreError = onError;
    this.refresh();
  }

  /** Remembers `ids` of `pid` as password fields (ids the platform has none for are skipped). */
  learn(pid: number, ids: Iterable<string>): void {
    if (this.add(pid, ids) && this.store) {
      const known = this.byPid.get(pid)!;
      this.guard(() => this.store!.save(new Map([[pid, known]])));
    }
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
    this.guard(() => {
      for (const [pid, ids] of store.loadIfChanged() ?? []) this.add(pid, ids);
    });
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.onStoreError?.(err);
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
