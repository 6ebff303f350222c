/**
 * The result lines of read tools (windows, attributes): one fact per line, short, so
 * the summary answers the question without a read of the file.
 */
import type { WindowInfo } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';

const round = (n: number): number => Math.round(n) || 0;

function rect(f: { x: number; y: number; w: number; h: number } | undefined): string {
  return f ? `(${round(f.x)},${round(f.y)} ${round(f.w)}x${round(f.h)})` : '(no frame)';
}

/** `0: "Title" [AXWindow] e3 pid 812 (0,0 800x600) active modal dialog` */
export function windowLine(view: SnapshotView, w: WindowInfo, i: number): string {
  const title = w.title || (view.snapshot.elements[w.index]?.name ?? '');
  const marks = [
    w.active ? 'active' : '',
    w.modal ? 'modal' : '',
    w.dialog ? 'dialog' : '',
    !w.unplaced && view.snapshot.elements[w.index]?.flags.includes('offscreen') ? 'minimized' : '',
  ].filter((m) => m !== '');
  // Not known to be shown nor hidden: said so, rather than "minimized".
  const where = w.unplaced ? `(not placed: ${w.unplaced})` : rect(w.frame);
  return `${i}: "${Array.from(title).slice(0, 60).join('')}" [${w.role}] ${view.refs[w.index] ?? ''} pid ${view.snapshot.pid} ${where}${marks.length ? ' ' + marks.join(' ') : ''}`;
}

/** A value: strings quoted, anything else as compact JSON (the summary escapes and caps lines). */
function show(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  return JSON.stringify(value) ?? 'undefined';
}

/**
 * get_attributes in at most 10 lines, most useful first; the summary caps each line
 * and structuredContent has them in full.
 */
export function attributeLines(attrs: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const add = (key: string, value: unknown): void => {
    if (value === undefined || value === '' || value === null) return;
    if (Array.isArray(value) && value.length === 0) return;
    lines.push(
      `${key}: ${Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join(' ') : show(value)}`,
    );
  };
  add(
    'role',
    attrs.native_role ? `${String(attrs.role)} (${String(attrs.native_role)})` : attrs.role,
  );
  add('name', attrs.name);
  add('value', attrs.value);
  add('description', attrs.description);
  add('identifier', attrs.identifier);
  const f = attrs.frame as { x: number; y: number; w: number; h: number } | undefined;
  if (f) lines.push(`frame: ${rect(f)}${attrs.visible ? ' visible' : ' not visible'}`);
  add('states', attrs.flags);
  add('actions', attrs.actions);
  const children = (attrs.children_refs as string[] | undefined) ?? [];
  lines.push(
    `parent: ${String(attrs.parent_ref ?? 'none')}, children: ${String(attrs.child_count ?? children.length)}${children.length ? ` (${children.slice(0, 5).join(' ')}${children.length > 5 ? ' …' : ''})` : ''}`,
  );
  add('platform', attrs.platform);
  return lines;
}
