/** Builders for snapshots as data, for the diff unit tests. */
import type { Element, Flag, Rect, Snapshot } from '../../../src/model/element.js';

export interface NodeSpec {
  role: string;
  name?: string;
  id?: string;
  value?: string;
  description?: string;
  frame?: Rect;
  flags?: Flag[];
  actions?: string[];
  children?: NodeSpec[];
}

/** A node spec; `children` nest. */
export function node(
  role: string,
  name = '',
  extra: Omit<NodeSpec, 'role' | 'name'> = {},
): NodeSpec {
  return { role, name, ...extra };
}

/** Flattens node specs depth-first into a snapshot, parents before children. */
export function snapshot(roots: NodeSpec[]): Snapshot {
  const elements: Element[] = [];
  const visit = (spec: NodeSpec, parent: number, depth: number): void => {
    const index = elements.length;
    elements.push({
      id: spec.id ?? '',
      parent,
      depth,
      role: spec.role,
      nativeRole: spec.role.replace(/^AX/, '').toLowerCase(),
      name: spec.name ?? '',
      value: spec.value,
      description: spec.description,
      frame: spec.frame ? { ...spec.frame } : undefined,
      flags: [...(spec.flags ?? [])],
      actions: [...(spec.actions ?? [])],
      childCount: spec.children?.length ?? 0,
    });
    for (const child of spec.children ?? []) visit(child, index, depth + 1);
  };
  for (const root of roots) visit(root, -1, 0);
  return {
    pid: 4242,
    app: 'fixture',
    elements,
    windows: [],
    truncated: null,
    elapsedMs: 1,
    takenAt: 0,
    method: 'fixture',
  };
}

/** A deep copy to mutate as the "after" snapshot. */
export function clone(snap: Snapshot): Snapshot {
  return structuredClone(snap);
}

/** The index of the first element with this name (and role, if given); throws if none. */
export function indexOf(snap: Snapshot, name: string, role?: string): number {
  const i = snap.elements.findIndex((el) => el.name === name && (!role || el.role === role));
  if (i < 0) throw new Error(`no element named ${JSON.stringify(name)}`);
  return i;
}

export interface ListOptions {
  /** Content numbers of the rows, in order. */
  rows: number[];
  /** Platform id of a row from its content number and its place in the list; '' for none. */
  rowId?: (k: number, n: number) => string;
  /** Y of the first listed row. */
  top?: number;
  rowHeight?: number;
  /** Cells per row (an AXStaticText label, then AXCheckBox/AXButton alternating). */
  cells?: number;
}

/** A window with a scroll area and a list of rows whose content is `Row <k>`. */
export function listWindow(opts: ListOptions): Snapshot {
  const top = opts.top ?? 100;
  const h = opts.rowHeight ?? 20;
  const cells = opts.cells ?? 0;
  const rowId = opts.rowId ?? ((k: number) => `:1.5/row/${k}`);
  const rows = opts.rows.map((k, n): NodeSpec => {
    const y = top + n * h;
    const id = rowId(k, n);
    const children: NodeSpec[] = [];
    for (let c = 0; c < cells; c++) {
      const cid = id === '' ? '' : `${id}/cell/${c}`;
      const frame = { x: 10 + c * 50, y, w: 50, h };
      if (c === 0) children.push(node('AXStaticText', `Row ${k}`, { id: cid, frame }));
      else if (c % 2 === 1) {
        children.push(node('AXCheckBox', 'Done', { id: cid, frame, flags: ['enabled'] }));
      } else {
        children.push(node('AXButton', 'Open', { id: cid, frame, actions: ['click'] }));
      }
    }
    return node('AXRow', `Row ${k}`, { id, frame: { x: 10, y, w: 400, h }, children });
  });
  return snapshot([
    node('AXWindow', 'Files', {
      id: ':1.5/win',
      frame: { x: 0, y: 0, w: 800, h: 600 },
      children: [
        node('AXButton', 'Back', { id: ':1.5/back', frame: { x: 0, y: 30, w: 40, h: 30 } }),
        node('AXScrollArea', '', {
          id: ':1.5/scroll',
          frame: { x: 0, y: 100, w: 800, h: 500 },
          children: [
            node('AXList', 'Files', {
              id: ':1.5/list',
              frame: { x: 0, y: 100, w: 800, h: 500 },
              children: rows,
            }),
          ],
        }),
      ],
    }),
  ]);
}

/** Content numbers from..to-1. */
export function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, k) => from + k);
}
