/**
 * One tree file read back for the viewer: its header facts, every element line of the
 * tree (and of each app_switch section) with its box, and the `# diff:` section. The
 * reverse of src/tree/file.ts and src/tree/line.ts; a line it cannot read is skipped and
 * counted, never a failure, since a file may be cut short or come from another version.
 */
import type { Box, DiffKind, ViewDiffEntry, ViewElement, ViewPair } from './model.js';

/** What one element line says, before its place in the file is known. */
export interface ParsedLine {
  ref: string;
  role: string;
  nativeRole?: string;
  text?: string;
  value?: string;
  description?: string;
  states: string[];
  box?: Box;
  id?: string;
}

/** Where the reader is in the file: element lines count only inside a tree section. */
type Section = 'header' | 'diff' | 'tree' | 'other';

const HEADER_KEY = /([a-z_]+): /y;
const ROLE = /\[([^\]\s(]+)(?: \(((?:[^)\\]|\\.)*)\))?\]/y;
const REF = /^e[1-9]\d*$/;
const FLAG = /^[a-z][a-z_-]*$/;
const CUT_NOTE = / \(\d+ chars\)/y;
const COORD = /^(x|y|w|h):(-?\d+)$/;
const RECT = /^(-?\d+),(-?\d+) (\d+)x(\d+)/;

/** Reverses escapeText: `\n`, `\t`, `\r`, `\\`, an escaped quote, `\uXXXX`. */
export function unescapeText(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, esc: string) => {
    if (esc.length === 5) return String.fromCharCode(parseInt(esc.slice(1), 16));
    if (esc === 'n') return '\n';
    if (esc === 'r') return '\r';
    if (esc === 't') return '\t';
    return esc;
  });
}

/** A quoted value starting at `at` (on its opening quote): its raw inside and the end. */
function quotedAt(line: string, at: number, quote = '"'): { raw: string; end: number } | null {
  if (line[at] !== quote) return null;
  let i = at + 1;
  while (i < line.length) {
    const ch = line[i];
    if (ch === '\\') i += 2;
    else if (ch === quote) return { raw: line.slice(at + 1, i), end: i + 1 };
    else i++;
  }
  return null;
}

/** A quoted text at `at` with its optional ` (N chars)` note skipped. */
function textAt(line: string, at: number): { text: string; end: number } | null {
  const q = quotedAt(line, at);
  if (!q) return null;
  CUT_NOTE.lastIndex = q.end;
  const end = CUT_NOTE.test(line) ? CUT_NOTE.lastIndex : q.end;
  return { text: unescapeText(q.raw), end };
}

/** `key:value` or `key:"quoted"` at `at`. */
function keyValueAt(line: string, at: number, key: string): { value: string; end: number } | null {
  if (!line.startsWith(`${key}:`, at)) return null;
  const start = at + key.length + 1;
  if (line[start] === '"') {
    const t = textAt(line, start);
    return t && { value: t.text, end: t.end };
  }
  const space = line.indexOf(' ', start);
  const end = space < 0 ? line.length : space;
  return { value: line.slice(start, end), end };
}

/**
 * One element line without indentation or diff prefix (formatElementLine's output), or
 * null when it is not one.
 */
export function parseElementLine(line: string): ParsedLine | null {
  ROLE.lastIndex = 0;
  const role = ROLE.exec(line);
  if (!role || line[ROLE.lastIndex] !== ' ') return null;
  const primary = textAt(line, ROLE.lastIndex + 1);
  if (!primary) return null;
  const out: ParsedLine = { ref: '', role: role[1], states: [] };
  if (role[2] !== undefined) out.nativeRole = unescapeText(role[2]);
  if (primary.text !== '') out.text = primary.text;
  const coords: Partial<Box> = {};
  let at = primary.end;
  while (at < line.length) {
    if (line[at] !== ' ') return null;
    at++;
    const kv =
      keyValueAt(line, at, 'value') ?? keyValueAt(line, at, 'desc') ?? keyValueAt(line, at, 'id');
    if (kv) {
      const key = line.slice(at, line.indexOf(':', at));
      if (key === 'value') out.value = kv.value;
      else if (key === 'desc') out.description = kv.value;
      else out.id = kv.value;
      at = kv.end;
      continue;
    }
    const skip = keyValueAt(line, at, 'actions') ?? keyValueAt(line, at, 'children');
    if (skip) {
      at = skip.end;
      continue;
    }
    const space = line.indexOf(' ', at);
    const token = line.slice(at, space < 0 ? line.length : space);
    at += token.length;
    const coord = COORD.exec(token);
    if (coord) coords[coord[1] as keyof Box] = Number(coord[2]);
    else if (REF.test(token) && out.ref === '') out.ref = token;
    else if (FLAG.test(token)) out.states.push(token);
    else return null;
  }
  const { x, y, w, h } = coords;
  if (x !== undefined && y !== undefined && w !== undefined && h !== undefined) {
    out.box = { x, y, w, h };
  }
  return out;
}

/** `x,y wxh` (the viewport and capture lines). */
export function parseRect(text: string | undefined): Box | undefined {
  const m = text === undefined ? null : RECT.exec(text);
  return m ? { x: Number(m[1]), y: Number(m[2]), w: Number(m[3]), h: Number(m[4]) } : undefined;
}

/**
 * The `key: value` facts of a header line (`# app: x  pid: 1  window: "T"  tool: t`):
 * values run to the next two-space `key: ` outside quotes.
 */
export function parseHeaderLine(body: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let at = 0;
  while (at < body.length) {
    HEADER_KEY.lastIndex = at;
    const key = HEADER_KEY.exec(body);
    if (!key) break;
    let i = HEADER_KEY.lastIndex;
    const start = i;
    let end = body.length;
    while (i < body.length) {
      if (body[i] === '"') {
        const q = quotedAt(body, i);
        i = q ? q.end : body.length;
        continue;
      }
      if (body.startsWith('  ', i) && /^ {2,}[a-z_]+: /.test(body.slice(i, i + 40))) {
        end = i;
        break;
      }
      i++;
    }
    out.push([key[1], body.slice(start, end).trim()]);
    at = end;
    while (body[at] === ' ') at++;
  }
  return out;
}

/** Header keys whose values are one line each, kept in order (there may be several). */
const REPEATED = new Set(['note']);

function addHeader(header: Record<string, string>, body: string): void {
  for (const [key, value] of parseHeaderLine(body)) {
    if (REPEATED.has(key) && header[key] !== undefined) header[key] += '\n' + value;
    else if (header[key] === undefined) header[key] = value;
  }
}

/** `frame: x,y -> x,y` of a moved line. */
const MOVED_FRAME = /(?:^|, )frame: (-?\d+),(-?\d+) -> (-?\d+),(-?\d+)/;

/** One line of the `# diff:` section, or null when it is not one. */
export function parseDiffLine(line: string, lineNo: number): ViewDiffEntry | null {
  const sign = line[0];
  if (line[1] !== ' ' || (sign !== '+' && sign !== '-' && sign !== '~')) return null;
  const rest = line.slice(2);
  if (sign === '+' || sign === '-') {
    const el = parseElementLine(rest);
    if (!el) return null;
    return {
      kind: sign === '+' ? 'added' : 'removed',
      ...(el.ref ? { ref: el.ref } : {}),
      role: el.role,
      ...(el.text !== undefined ? { text: el.text } : {}),
      ...(el.box ? { box: el.box } : {}),
      line: lineNo,
    };
  }
  const moved = rest.startsWith('moved ');
  const headText = moved ? rest.slice('moved '.length) : rest;
  const bar = headOf(headText);
  const head = parseElementLine(headText.slice(0, bar));
  if (!head) return null;
  const changes = bar < headText.length ? headText.slice(bar + 3) : '';
  const entry: ViewDiffEntry = {
    kind: moved ? 'moved' : 'modified',
    ...(head.ref ? { ref: head.ref } : {}),
    role: head.role,
    ...(head.text !== undefined ? { text: head.text } : {}),
    line: lineNo,
  };
  if (changes !== '') entry.changes = changes;
  const frame = MOVED_FRAME.exec(changes);
  if (frame) {
    entry.from = { x: Number(frame[1]), y: Number(frame[2]) };
    entry.to = { x: Number(frame[3]), y: Number(frame[4]) };
  }
  return entry;
}

/** Where a `~` line's head (`[Role] "text" e1`) ends: at ` | ` outside its quotes. */
function headOf(text: string): number {
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      const q = quotedAt(text, i);
      if (!q) return text.length;
      i = q.end;
      continue;
    }
    if (text.startsWith(' | ', i)) return i;
    i++;
  }
  return text.length;
}

export interface ParseOptions {
  /** The tree file's basename, as the pair names it. */
  tree: string;
  /** The screenshot's basename, when it is on disk. */
  png?: string;
}

/** How many leading spaces, as tree depth (two per level). */
function depthOf(line: string): number {
  let n = 0;
  while (line[n] === ' ') n++;
  return n >> 1;
}

/** Parses a whole tree file; never throws on its contents. */
export function parsePair(text: string, opts: ParseOptions): ViewPair {
  const header: Record<string, string> = {};
  const elements: ViewElement[] = [];
  const diff: ViewDiffEntry[] = [];
  let section: Section = 'header';
  let appSection = -1;
  let skipped = 0;
  const lines = text.split('\n');
  // A file that does not end with a line break was cut: its last line is not trusted.
  const complete = text === '' || text.endsWith('\n');
  const count = lines.length - 1;
  for (let i = 0; i < count; i++) {
    const line = lines[i];
    const lineNo = i + 1;
    if (line.startsWith('# ')) {
      const body = line.slice(2);
      if (body === 'tree') {
        section = 'tree';
        appSection = 0;
      } else if (body.startsWith('app_switch: ')) {
        section = 'tree';
        appSection++;
        header[`app_switch${appSection}`] = body.slice('app_switch: '.length);
      } else if (body.startsWith('diff: ')) {
        section = 'diff';
        header.diff = body.slice('diff: '.length);
      } else if (section === 'header') {
        addHeader(header, body);
      } else if (section === 'tree' && appSection > 0 && /^(elements|viewport): /.test(body)) {
        // An app_switch section's own header lines.
      } else {
        section = 'other';
      }
      continue;
    }
    if (section === 'diff') {
      const entry = parseDiffLine(line, lineNo);
      if (entry) diff.push(entry);
      else if (line.trim() !== '') skipped++;
      continue;
    }
    if (section !== 'tree') continue;
    const parsed = parseElementLine(line.trimStart());
    if (!parsed) {
      if (line.trim() !== '') skipped++;
      continue;
    }
    elements.push(toElement(parsed, line, lineNo, appSection));
  }
  if (!complete && lines[lines.length - 1] !== '') skipped++;
  markDiff(elements, diff);
  const pair: ViewPair = { tree: opts.tree, header, elements, diff };
  if (opts.png !== undefined) pair.png = opts.png;
  const capture = parseRect(header.capture);
  if (capture) pair.capture = capture;
  if (!complete) pair.incomplete = true;
  if (skipped > 0) pair.skipped = skipped;
  return pair;
}

function toElement(p: ParsedLine, line: string, lineNo: number, section: number): ViewElement {
  const el: ViewElement = {
    ref: p.ref,
    role: p.role,
    states: p.states,
    line: lineNo,
    depth: depthOf(line),
    section,
  };
  if (p.text !== undefined) el.text = p.text;
  if (p.value !== undefined) el.value = p.value;
  if (p.description !== undefined) el.description = p.description;
  if (p.nativeRole !== undefined) el.nativeRole = p.nativeRole;
  if (p.id !== undefined) el.id = p.id;
  if (p.box) el.box = p.box;
  return el;
}

/** The diff is of the target app (section 0): its elements get the kind their ref has. */
function markDiff(elements: ViewElement[], diff: ViewDiffEntry[]): void {
  const kinds = new Map<string, DiffKind>();
  for (const d of diff) if (d.ref && d.kind !== 'removed') kinds.set(d.ref, d.kind);
  if (kinds.size === 0) return;
  for (const el of elements) {
    if (el.section !== 0 || el.ref === '') continue;
    const kind = kinds.get(el.ref);
    if (kind) el.diff = kind;
  }
}
