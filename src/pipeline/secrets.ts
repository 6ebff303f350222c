/**
 * Texts this session knows to be secret (typed or set into a password field, or on the
 * clipboard right after a copy from one), kept as keyed hashes: the memory can tell a
 * secret when it sees it again. Where the text itself must be found inside other text
 * (an app echoes what went in), it is handed to SecretEchoes too, in this process's
 * memory only.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { SECURE_MASK } from '../tree/text.js';

export class SecretMemory {
  /** Per server: the hashes mean nothing outside this process. */
  private readonly key = randomBytes(32);
  private readonly known = new Map<string, string>();

  /** `echoes`: where each text noted is also looked for inside every text shown. */
  constructor(private readonly echoes?: SecretEchoes) {}

  /** Remember `text` as secret, and why (shown when a read is masked). */
  note(text: string, why: string): void {
    if (text === '') return;
    this.known.set(this.hash(text), why);
    this.echoes?.add(text);
  }

  /** A keyed hash of `text`: tells two texts apart without keeping either. */
  fingerprint(text: string): string {
    return this.hash(text);
  }

  /** Why `text` is secret, or undefined when it is not one we know. */
  reason(text: string): string | undefined {
    return text === '' ? undefined : this.known.get(this.hash(text));
  }

  get size(): number {
    return this.known.size;
  }

  private hash(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64');
  }
}

/** Key names that copy or cut the selection: ctrl+c, ctrl+x, ctrl+Insert, shift+Delete. */
export function isCopyKey(key: string, modifiers: readonly string[] = []): boolean {
  const parts = key
    .split('+')
    .map((p) => p.trim().toLowerCase())
    .filter(Boolean);
  const name = parts.pop() ?? '';
  const mods = new Set([...parts, ...modifiers.map((m) => m.toLowerCase())]);
  const ctrl = mods.has('ctrl') || mods.has('control');
  if (ctrl && (name === 'c' || name === 'x' || name === 'insert')) return true;
  return mods.has('shift') && name === 'delete';
}

/**
 * Secrets as text, to be masked wherever an app echoes them. A secret pasted into a search
 * box comes back in the status line ("No results for …"), the window title, a list of
 * recent searches, a field the app fills from it later: none of them is a password field,
 * and a hash of the whole text cannot find it inside another. So the texts are kept here,
 * in memory only (never on disk, never logged), and every text the desktop gives out goes
 * through scrub(). Texts shorter than MIN_CHARS are not looked for: they would mask common
 * words everywhere (the field they were typed into stays a password field).
 */
export class SecretEchoes {
  static readonly MIN_CHARS = 4;
  /** Longest first: a secret that holds another is masked whole. */
  private texts: string[] = [];

  /** Looks for `text` from now on, and for each of its lines (an app may echo one). */
  add(text: string): void {
    const parts = [text.trim(), ...text.split(/\r?\n/).map((l) => l.trim())];
    let added = false;
    for (const part of parts) {
      if ([...part].length < SecretEchoes.MIN_CHARS || this.texts.includes(part)) continue;
      this.texts.push(part);
      added = true;
    }
    if (added) this.texts.sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.texts.length;
  }

  /** Whether `text` holds a secret. */
  holds(text: string): boolean {
    return this.texts.some((secret) => text.includes(secret));
  }

  /** `text` with every secret in it masked. */
  scrub(text: string): string {
    let out = text;
    for (const secret of this.texts)
      if (out.includes(secret)) out = out.split(secret).join(SECURE_MASK);
    return out;
  }

  /**
   * A value with every string in it scrubbed, at any depth of plain objects and arrays (a
   * tool's result, a read's answer); the value itself when nothing changed.
   */
  scrubDeep<T>(value: T): T {
    if (this.texts.length === 0) return value;
    return this.deep(value) as T;
  }

  private deep(value: unknown): unknown {
    if (typeof value === 'string') return this.scrub(value);
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((v) => {
        const s = this.deep(v);
        if (s !== v) changed = true;
        return s;
      });
      return changed ? out : value;
    }
    if (
      value === null ||
      typeof value !== 'object' ||
      Object.getPrototypeOf(value) !== Object.prototype
    ) {
      return value;
    }
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const s = this.deep(v);
      if (s !== v) changed = true;
      out[k] = s;
    }
    return changed ? out : value;
  }
}
