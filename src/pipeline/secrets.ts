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
 * in a URL, reversed, in base64 (of it or of it turned round), base32, hex, ROT13 or
 * ROT47, as markup, in look-alike letters (other scripts', small capitals, full-width
 * forms: see fold), with signs or invisible characters between its letters, or only its
 * first part. The exact forms (any case, escaped, reversed, encoded) are masked where they
 * are; a line that holds it only otherwise or in part
 * (PART_CHARS characters of its letters and digits in a row, half of it up to PART_MAX) is
 * masked whole (the whole text when no one line holds it). Texts shorter than MIN_CHARS are
 * not looked for: they would mask common words everywhere (the field they were typed into
 * stays a password field).
 *
 * A short secret (fewer than PART_CHARS letters and digits) or one of digits only (a PIN,
 * a card number) would turn up by chance where other texts' letters and digits are joined
 * across their signs: coordinates "(1242,12 34x30)" run "1234". Such a secret is found in
 * its own forms, and spread out only evenly (the same signs between every two of its
 * characters: "1 2 3 4", "K-q-4-z"); one of digits only as a whole number, not inside a
 * longer run of letters and digits (a ref, a timestamp), and a long one also in part and
 * in groups split by spaces, dashes, dots or slashes ("4111 2222 3333 4444"), within a
 * number that stands alone (no letter next to it, as in a size "3333x4444").
 */
export class SecretEchoes {
  static readonly MIN_CHARS = 4;
  /** A part of a secret this long (or half of it, if more) in a row counts as an echo. */
  static readonly PART_CHARS = 8;
  /** Each secret's forms to mask in place, lower case, longest first. */
  private forms: Form[] = [];
  /** Each secret's runs of PART_CHARS or more, lower case without spaces: found, they mask the whole text. */
  private parts: string[] = [];
  /** Runs of long digit-only secrets, found in digits joined only across group signs. */
  private digitParts: string[] = [];
  /** Short and digit-only secrets spread out evenly (see spreadOut). */
  private spread: RegExp[] = [];
  /** Each secret folded (see fold), and turned round: looked for in a folded text. */
  private folded: string[] = [];
  private readonly secrets = new Set<string>();

  /** Looks for `text` from now on, and for each of its lines (an app may echo one). */
  add(text: string): void {
    const lines = [text.trim(), ...text.split(/\r?\n/).map((l) => l.trim())];
    for (const secret of lines) {
      if ([...secret].length < SecretEchoes.MIN_CHARS || this.secrets.has(secret)) continue;
      this.secrets.add(secret);
      const lower = secret.toLowerCase();
      const squeezed = squeeze(secret);
      const digits = squeezed !== '' && /^\p{N}+$/u.test(squeezed);
      const reversed = [...secret].reverse().join('');
      // How a URL carries it: escaped as JavaScript, a form (a space as '+') and Python
      // (every sign) escape it; and two ways an app may turn it round before showing it.
      const encodings = [
        encodeURIComponent(secret),
        new URLSearchParams({ q: secret }).toString().slice(2),
        escapeAll(secret),
        reversed,
        ...base64Forms(secret),
        ...base64Forms(reversed),
        ...base32Forms(secret),
        Buffer.from(secret, 'utf8').toString('hex'),
        [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
        rot13(secret),
        rot47(secret),
      ];
      // A number's look-alikes are its full-width digits: found as a whole number below.
      for (const f of digits ? [] : [fold(secret), fold(reversed)]) {
        if (!this.folded.includes(f)) this.folded.push(f);
      }
      for (const f of [lower, ...encodings.map((e) => e.toLowerCase())]) {
        // A number inside a longer one is another number: digit forms count as whole tokens.
        const form = { text: f, token: digits && /^\p{N}+$/u.test(f) };
        if (!this.forms.some((g) => g.text === form.text)) this.forms.push(form);
      }
      const short = squeezed.length < SecretEchoes.PART_CHARS;
      if (short || digits) this.spread.push(spreadOut(squeezed, digits));
      if (short) continue;
      const run = Math.min(
        squeezed.length,
        Math.max(SecretEchoes.PART_CHARS, Math.min(PART_MAX, Math.ceil(squeezed.length / 2))),
      );
      const into = digits ? this.digitParts : this.parts;
      for (let i = 0; i + run <= squeezed.length; i++) into.push(squeezed.slice(i, i + run));
    }
    this.forms.sort((a, b) => b.text.length - a.text.length);
  }

  get size(): number {
    return this.secrets.size;
  }

  /** Whether `text` holds a secret, in any of the forms looked for. */
  holds(text: string): boolean {
    if (this.secrets.size === 0 || text === '') return false;
    const lower = text.toLowerCase();
    if (this.forms.some((form) => indexOfForm(lower, form, 0) >= 0)) return true;
    // Written as markup (entities), or with signs or invisible characters between its letters.
    const folded = fold(decodeEntities(text));
    if (this.folded.some((f) => folded.includes(f))) return true;
    const plain = dropInvisible(folded);
    const squeezed = lettersAndDigits(plain);
    if (this.parts.some((part) => squeezed.includes(part))) return true;
    if (this.digitParts.length > 0) {
      const numbers = joinDigitGroups(plain).match(NUMBER) ?? [];
      if (numbers.some((n) => this.digitParts.some((part) => n.includes(part)))) return true;
    }
    return this.spread.some((re) => re.test(plain));
  }

  /**
   * `text` with every secret in it masked: its exact forms where they are; else each line
   * that holds one, or all of it when no one line does.
   */
  /**
   * How many characters at the end of `text` may begin a secret (or a form of one) that
   * is still to come: a stream that writes a line before its end holds them back until it
   * knows (an app printing a secret slowly, a character at a time).
   */
  heldTail(text: string): number {
    const lower = text.slice(-HELD_TAIL_MAX).toLowerCase();
    let best = 0;
    for (const { text: form } of this.forms) {
      // A whole form at the end too: the text after it may still make it a longer one.
      for (let k = Math.min(form.length, lower.length); k > best; k--) {
        if (lower.endsWith(form.slice(0, k))) {
          best = k;
          break;
        }
      }
    }
    return best;
  }

  scrub(text: string): string {
    if (!this.holds(text)) return text;
    let out = text;
    for (const form of this.forms) {
      // Case-blind, at the same offsets: lower-casing keeps the length of these texts.
      let lower = out.toLowerCase();
      if (lower.length !== out.length) return SECURE_MASK;
      for (
        let at = indexOfForm(lower, form, 0);
        at >= 0;
        at = indexOfForm(lower, form, at + SECURE_MASK.length)
      ) {
        out = out.slice(0, at) + SECURE_MASK + out.slice(at + form.text.length);
        lower = out.toLowerCase();
      }
    }
    if (!this.holds(out)) return out;
    // Found otherwise (spread out, in part): the lines that hold it, not the whole text.
    const lines = out.split('\n').map((line) => (this.holds(line) ? SECURE_MASK : line));
    const masked = lines.join('\n');
    return this.holds(masked) ? SECURE_MASK : masked;
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
  return lettersAndDigits(dropInvisible(fold(text)));
}

/** Signs and spaces dropped. */
function lettersAndDigits(text: string): string {
  return text.replace(/[^\p{L}\p{N}]+/gu, '');
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

/**
 * The secret's base32 (RFC 4648) wherever it starts in what is encoded (after 0 to 4 other
 * bytes): the characters its bits alone decide, each standing for five of them.
 */
function base32Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const out: string[] = [];
  for (let lead = 0; lead < 5; lead++) {
    const all = base32(Buffer.concat([Buffer.alloc(lead), bytes]));
    const form = all.slice(Math.ceil((lead * 8) / 5), Math.floor(((lead + bytes.length) * 8) / 5));
    if (form.length >= 8) out.push(form);
  }
  return out;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding. */
function base32(bytes: Buffer): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(acc >> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32[(acc << (5 - bits)) & 31];
  return out;
}

/** Printable ASCII rotated by 47 (ROT13's kin that turns digits and signs too). */
function rot47(text: string): string {
  return text.replace(/[!-~]/g, (c) =>
    String.fromCharCode(33 + ((c.charCodeAt(0) - 33 + 47) % 94)),
  );
}

/**
 * Letters that draw like Latin ones, as the Latin ones: Cyrillic and Greek look-alikes
 * (capitals mapped by how they look, before case is folded: Greek Η is an h, η an n) and
 * small capitals. Full-width and other compatibility forms NFKC takes care of.
 */
const LOOK_ALIKES: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ԁ: 'd',
  һ: 'h',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  ь: 'b',
  А: 'a',
  В: 'b',
  Е: 'e',
  Ё: 'e',
  К: 'k',
  М: 'm',
  Н: 'h',
  О: 'o',
  Р: 'p',
  С: 'c',
  Т: 't',
  У: 'y',
  Х: 'x',
  Ѕ: 's',
  І: 'i',
  Ј: 'j',
  Ԛ: 'q',
  Ԝ: 'w',
  Ӏ: 'l',
  // Greek
  α: 'a',
  β: 'b',
  γ: 'y',
  ε: 'e',
  ζ: 'z',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  Α: 'a',
  Β: 'b',
  Ε: 'e',
  Ζ: 'z',
  Η: 'h',
  Ι: 'i',
  Κ: 'k',
  Μ: 'm',
  Ν: 'n',
  Ο: 'o',
  Ρ: 'p',
  Τ: 't',
  Υ: 'y',
  Χ: 'x',
  // Small capitals
  ᴀ: 'a',
  ʙ: 'b',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ꜰ: 'f',
  ɢ: 'g',
  ʜ: 'h',
  ɪ: 'i',
  ᴊ: 'j',
  ᴋ: 'k',
  ʟ: 'l',
  ᴍ: 'm',
  ɴ: 'n',
  ᴏ: 'o',
  ᴘ: 'p',
  ǫ: 'q',
  ʀ: 'r',
  ꜱ: 's',
  ᴛ: 't',
  ᴜ: 'u',
  ᴠ: 'v',
  ᴡ: 'w',
  ʏ: 'y',
  ᴢ: 'z',
};
/** What lower case leaves apart that a case fold joins: ß (SS in capitals), final sigma. */
const CASE_FOLDS = /[ßς]/g;
const LOOK_ALIKE = new RegExp(`[${Object.keys(LOOK_ALIKES).join('')}]`, 'gu');

/**
 * A text as it reads: compatibility forms as plain ones (NFKC: full-width, mathematical
 * letters), look-alikes as the Latin letters they draw as, and case folded (ß as ss). One
 * pass over the text, whatever the number of secrets; lengths may change (no offsets kept).
 */
export function fold(text: string): string {
  return text
    .normalize('NFKC')
    .replace(LOOK_ALIKE, (c) => LOOK_ALIKES[c] ?? c)
    .toLowerCase()
    .replace(CASE_FOLDS, (c) => (c === 'ß' ? 'ss' : 'σ'));
}

/** Letters rotated by 13, as some apps obscure a text. */
function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** A form to mask in place; `token`: only where no letter or digit adjoins it. */
/** Longest tail heldTail looks at: a secret's form longer than this is cut anyway. */
const HELD_TAIL_MAX = 1024;

interface Form {
  text: string;
  token: boolean;
}

const ALNUM = /[\p{L}\p{N}]/u;

/** Where `form` is in `lower` from `from` on (a token form: as a whole token); -1: nowhere. */
function indexOfForm(lower: string, form: Form, from: number): number {
  for (let at = lower.indexOf(form.text, from); at >= 0; at = lower.indexOf(form.text, at + 1)) {
    if (!form.token) return at;
    const before = at > 0 ? lower[at - 1] : '';
    const after = lower[at + form.text.length] ?? '';
    if (!ALNUM.test(before) && !ALNUM.test(after)) return at;
  }
  return -1;
}

/** Characters that draw nothing (zero-width, soft hyphens, Hangul fillers) dropped. */
function dropInvisible(text: string): string {
  return text.replace(/[\p{Default_Ignorable_Code_Point}\u3164\u115f\u1160\uffa0]+/gu, '');
}

/** A number standing alone: no letter or digit next to it (a ref e1234, a size 34x30). */
const NUMBER = /(?<![\p{L}\p{N}])\p{N}+(?![\p{L}\p{N}])/gu;

/** Digits split into groups by spaces, dashes, dots or slashes, joined ("4111 2222" → "41112222"). */
function joinDigitGroups(text: string): string {
  return text.replace(/(?<=\p{N})[\s\-./]{1,3}(?=\p{N})/gu, '');
}

/**
 * A short or digit-only secret (squeezed) spread out evenly: its characters in a row with
 * the same signs (none, or up to three) between every two of them, matched in a `visible`
 * text. One of digits only as a whole number: no letter or digit before or after it.
 */
function spreadOut(squeezed: string, digits: boolean): RegExp {
  const chars = [...squeezed].map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const body = chars.map((c, i) =>
    i === 0 ? c : i === 1 ? `(?<sep>[^\\p{L}\\p{N}]{0,3})${c}` : `\\k<sep>${c}`,
  );
  const edge = digits ? ['(?<![\\p{L}\\p{N}])', '(?![\\p{L}\\p{N}])'] : ['', ''];
  return new RegExp(`${edge[0]}${body.join('')}${edge[1]}`, 'u');
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
