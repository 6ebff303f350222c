/**
 * Synthetic snapshots for unit tests: a nested spec becomes a flat, depth-first element
 * list with parents and depths, windows derived from top-level specs, and a view with
 * refs and visibility computed by the real viewport module.
 */
import type { Element, Flag, Rect, Snapshot, WindowInfo } from '../../../src/model/element.js';
import type { SnapshotView } from '../../../src/model/view.js';
import { computeVisibility } from '../../../src/viewport/index.js';

export const SCREEN: Rect = { x: 0, y: 0, w: 1280, h: 800 };

export interface Spec {
  role: string;
  nativeRole?: string;
  name?: string;
  value?: string;
  description?: string;
  /** [x, y, w, h] */
  frame?: [number, number, number, number];
  flags?: Flag[];
  actions?: string[];
  identifier?: string;
  id?: string;
  childCount?: number;
  /** Top-level only: makes it a WindowInfo. */
  window?: { modal?: boolean; dialog?: boolean; active?: boolean; title?: string };
  children?: Spec[];
}

export function rect(x: number, y: number, w: number, h: number): Rect {
  return { x, y, w, h };
}

export function element(partial: Partial<Element> & { role: string }): Element {
  return {
    id: '',
    parent: -1,
    depth: 0,
    nativeRole: partial.role.replace(/^AX/, '').toLowerCase(),
    name: '',
    flags: [],
    actions: [],
    childCount: 0,
    ...partial,
  };
}

export function buildSnapshot(
  roots: Spec[],
  opts: { pid?: number; app?: string; truncated?: string | null; elapsedMs?: number } = {},
): Snapshot {
  const elements: Element[] = [];
  const windows: WindowInfo[] = [];
  const visit = (spec: Spec, parent: number, depth: number): void => {
    const index = elements.length;
    const el = element({
      role: spec.role,
      id: spec.id ?? `/obj/${index}`,
      parent,
      depth,
      name: spec.name ?? '',
      flags: spec.flags ?? [],
      actions: spec.actions ?? [],
      childCount: spec.childCount ?? spec.children?.length ?? 0,
    });
    if (spec.nativeRole !== undefined) el.nativeRole = spec.nativeRole;
    if (spec.value !== undefined) el.value = spec.value;
    if (spec.description !== undefined) el.description = spec.description;
    if (spec.identifier !== undefined) el.identifier = spec.identifier;
    if (spec.frame) el.frame = rect(...spec.frame);
    elements.push(el);
    if (spec.window) {
      windows.push({
        index,
        title: spec.window.title ?? spec.name ?? '',
        role: spec.role,
        frame: el.frame,
        modal: spec.window.modal ?? false,
        dialog: spec.window.dialog ?? false,
        active: spec.window.active ?? false,
      });
    }
    for (const child of spec.children ?? []) visit(child, index, depth + 1);
  };
  for (const r of roots) visit(r, -1, 0);
  return {
    pid: opts.pid ?? 4242,
    app: opts.app ?? 'demo-app',
    elements,
    windows,
    truncated: opts.truncated ?? null,
    elapsedMs: opts.elapsedMs ?? 12.4,
    takenAt: 1_763_790_000_000,
    method: 'synthetic',
  };
}

/** A view with refs e1.. (or an offset) and visibility from the real viewport module. */
export function viewOf(
  snapshot: Snapshot,
  opts: { screen?: Rect; refBase?: number; snapshotId?: string; windowIndex?: number } = {},
): SnapshotView {
  const vis = computeVisibility(snapshot, opts.screen ?? SCREEN, {
    windowIndex: opts.windowIndex,
  });
  const base = opts.refBase ?? 1;
  return {
    snapshot,
    snapshotId: opts.snapshotId ?? 's7f3a',
    refs: snapshot.elements.map((_, i) => `e${base + i}`),
    visible: vis.visible,
    viewport: vis.viewport,
    dialog: vis.dialog,
  };
}

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NASTY = [
  '\n',
  '\r\n',
  '\t',
  '"',
  "'",
  '\\',
  '\u0000',
  '\u001b[31m',
  '\u0085',
  '\u2028',
  '\u2029',
  '\u202e',
  '\ud800',
  '😀',
  'é',
  '日本',
  '•',
  '…',
  ' ',
];

/** Random text mixing ASCII with every character class the escaper must handle. */
export function randomText(next: () => number, length: number): string {
  let out = '';
  while (out.length < length) {
    if (next() < 0.15) out += NASTY[Math.floor(next() * NASTY.length)];
    else out += String.fromCharCode(97 + Math.floor(next() * 26));
  }
  return out;
}

const ROLES = [
  'AXButton',
  'AXTextField',
  'AXStaticText',
  'AXCheckBox',
  'AXGroup',
  'AXCell',
  'AXTable',
  'AXTabGroup',
  'AXMenuItem',
  'AXImage',
];

/**
 * A big app: one window with `n - 1` descendants in nested groups, names of
 * `nameLength` characters (random, nasty), frames laid out on a grid on screen.
 */
export function bigSnapshot(
  n: number,
  opts: { nameLength?: number; seed?: number; valueLength?: number } = {},
): Snapshot {
  const next = rng(opts.seed ?? 1);
  const nameLength = opts.nameLength ?? 20;
  const kids: Spec[] = [];
  let group: Spec | null = null;
  for (let i = 1; i < n; i++) {
    const role = ROLES[Math.floor(next() * ROLES.length)];
    const spec: Spec = {
      role,
      name: randomText(next, nameLength),
      frame: [(i * 37) % 1200, (i * 13) % 760, 60, 20],
      flags: next() < 0.5 ? ['enabled'] : ['enabled', 'focusable'],
      actions: role === 'AXGroup' ? ['click'] : [],
    };
    if (opts.valueLength) spec.value = randomText(next, opts.valueLength);
    if (group && group.children && group.children.length < 40 && next() < 0.9) {
      group.children.push(spec);
    } else if (role === 'AXGroup') {
      spec.children = [];
      group = spec;
      kids.push(spec);
    } else kids.push(spec);
  }
  const fixCounts = (s: Spec): void => {
    s.childCount = s.children?.length ?? 0;
    for (const c of s.children ?? []) fixCounts(c);
  };
  const root: Spec = {
    role: 'AXWindow',
    nativeRole: 'frame',
    name: 'Big Window',
    frame: [0, 0, 1280, 800],
    window: { active: true },
    children: kids,
  };
  fixCounts(root);
  return buildSnapshot([root], { app: 'big-app', pid: 777 });
}
