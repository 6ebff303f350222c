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
 * through scrub(). An app may echo it otherwise than it went in: in another case, escaped
 * in a URL, reversed or in base64, as markup, with signs or invisible characters between
 * its letters, or only its first part. The exact forms (any case, escaped, reversed,
 * base64) are masked where they are; a text that holds it only otherwise or in part
 * (PART_CHARS characters of its letters and digits in a row, half of it up to PART_MAX) is
 * masked whole. Texts
 * shorter than MIN_CHARS are not looked for: they would mask common words everywhere (the
 * field they were typed into stays a password field).
 */
export class SecretEchoes {
  static readonly MIN_CHARS = 4;
  /** A part of a secret this long (or half of it, if more) in a row counts as an echo. */
  static readonly PART_CHARS = 8;
  /** Each secret's forms to mask in place, lower case, longest first. */
  private forms: string[] = [];
  /** Each secret's runs of PART_CHARS or more, lower case without spaces: found, they mask the whole text. */
  private parts: string[] = [];
  private readonly secrets = new Set<string>();

  /** Looks for `text` from now on, and for each of its lines (an app may echo one). */
  add(text: string): void {
    const lines = [text.trim(), ...text.split(/\r?\n/).map((l) => l.trim())];
    for (const secret of lines) {
      if ([...secret].length < SecretEchoes.MIN_CHARS || this.secrets.has(secret)) continue;
      this.secrets.add(secret);
      const lower = secret.toLowerCase();
      // How a URL carries it: escaped as JavaScript, a form (a space as '+') and Python
      // (every sign) escape it; and two ways an app may turn it round before showing it.
      const encodings = [
        encodeURIComponent(secret),
        new URLSearchParams({ q: secret }).toString().slice(2),
        escapeAll(secret),
        [...secret].reverse().join(''),
        ...base64Forms(secret),
        Buffer.from(secret, 'utf8').toString('hex'),
        [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
        rot13(secret),
      ];
      for (const f of [lower, ...encodings.map((e) => e.toLowerCase())]) {
        if (!this.forms.includes(f)) this.forms.push(f);
      }
      const squeezed = squeeze(secret);
      const run = Math.min(
        squeezed.length,
        Math.max(SecretEchoes.PART_CHARS, Math.min(PART_MAX, Math.ceil(squeezed.length / 2))),
      );
      for (let i = 0; i + run <= squeezed.length; i++) this.parts.push(squeezed.slice(i, i + run));
    }
    this.forms.sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.secrets.size;
  }

  /** Whether `text` holds a secret, in any of the forms looked for. */
  holds(text: string): boolean {
    if (this.secrets.size === 0 || text === '') return false;
    const lower = text.toLowerCase();
    if (this.forms.some((form) => lower.includes(form))) return true;
    // Written as markup (entities), or with signs or invisible characters between its letters.
    const squeezed = squeeze(decodeEntities(text));
    return this.parts.some((part) => squeezed.includes(part));
  }

  /** `text` with every secret in it masked: its exact forms where they are; else all of it. */
  scrub(text: string): string {
    if (!this.holds(text)) return text;
    let out = text;
    for (const form of this.forms) {
      // Case-blind, at the same offsets: lower-casing keeps the length of these texts.
      let lower = out.toLowerCase();
      if (lower.length !== out.length) return SECURE_MASK;
      for (
        let at = lower.indexOf(form);
        at >= 0;
        at = lower.indexOf(form, at + SECURE_MASK.length)
      ) {
        out = out.slice(0, at) + SECURE_MASK + out.slice(at + form.length);
        lower = out.toLowerCase();
      }
    }
    return this.holds(out) ? SECURE_MASK : out;
  }

  /**
   * A value with every string in it scrubbed, at any depth of plain objects and arrays (a
   * tool's result, a read's answer); the value itself when nothing changed.
   */
  scrubDeep<T>(value: T): T {
    if (this.secrets.size === 0) return value;
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

/**
 * Lower case, letters and digits only: a secret spaced out ("E c h o"), with signs between
 * ("E*c*h*o", words joined by dashes) or invisible characters (zero-width spaces, soft
 * hyphens) is still found.
 */
function squeeze(text: string): string {
  // Compatibility forms (full-width, mathematical letters) as plain letters; characters
  // that draw nothing (zero-width, fillers) and signs dropped.
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{Default_Ignorable_Code_Point}\u3164\u115f\u1160\uffa0]+/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * The secret's base64 wherever it starts in what is encoded (after 0, 1 or 2 other bytes:
 * "user:secret" in an Authorization header): the characters its bytes alone decide.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const out: string[] = [];
  for (const lead of [0, 1, 2]) {
    const all = Buffer.concat([Buffer.alloc(lead), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    // Leading characters mix in the bytes before; the last two may mix in those after.
    const form = all.slice([0, 2, 3][lead], lead === 0 && bytes.length % 3 === 0 ? undefined : -2);
    if (form.length >= 8) out.push(form);
  }
  return out;
}

/** Letters rotated by 13, as some apps obscure a text. */
function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** Longest run of a secret looked for: 12 characters of a long token are enough to tell it. */
const PART_MAX = 12;

/** Every character but letters and digits percent-escaped (as Python's quote does). */
function escapeAll(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((b) =>
      (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a)
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/** HTML character references written out (&#69; &#x45; &amp;): what a page's markup shows. */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return ENTITIES[ref.toLowerCase()] ?? whole;
    const code =
      ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
