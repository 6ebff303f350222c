/**
 * sway's GET_TREE reply turned into the windows a desktop backend lists: pid, title,
 * app_id, where the content is on screen, focus, visibility, and front-to-back order.
 *
 * Pure: no socket, no process. What it relies on, measured on sway 1.7 (docs/wayland.md,
 * and the recorded trees in test/unit/fixtures/sway/):
 * - `rect` is the container below its title bar; `window_rect` is the client's content
 *   relative to `rect`. The content on screen is their sum: toolkits report accessible
 *   extents relative to that point on Wayland.
 * - `floating_nodes` is drawn in list order, last on top, and sway moves a floating window
 *   to the end when it is focused (raise on focus). Floating windows are drawn above tiled
 *   ones, also above a focused tiled window.
 * - `focus` of every container lists its children's ids most recently focused first.
 *   Tiled windows of one workspace do not overlap (tabs and stacks hide all but one, with
 *   `visible: false`), so focus history is the only order they have.
 * - xdg popups (menus, combo lists) are not in the tree at all: a combo popup open on
 *   screen was absent from the recorded reply. Nothing here can list them.
 * - While a layout change is in flight, a window's geometry and its border disagree: a
 *   new window was listed for about 13 ms with `border: "none"`, `current_border_width`
 *   0, no deco_rect and a rect over its title bar's place, while `window_rect.x` already
 *   held its 2 px border; its content origin read then was 25 px too high. `settled`
 *   says whether the two agree; a caller placing input reads again until they do.
 */
import type { Rect } from '../../../model/element.js';

export interface SwayRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The fields of a GET_TREE node this module reads; sway sends many more. */
export interface SwayNode {
  id: number;
  type: string;
  name?: string | null;
  rect: SwayRect;
  window_rect?: SwayRect;
  deco_rect?: SwayRect;
  focused?: boolean;
  focus?: number[];
  nodes?: SwayNode[];
  floating_nodes?: SwayNode[];
  pid?: number;
  app_id?: string | null;
  shell?: string;
  visible?: boolean;
  /** The border drawn now; window_rect.x is the one being laid out (see `settled`). */
  current_border_width?: number;
  /** 0 none, 1 fullscreen on its workspace, 2 global fullscreen. */
  fullscreen_mode?: number;
  window_properties?: { class?: string; instance?: string; title?: string };
}

export interface SwayWindow {
  /** sway's container id: stable while the window lives, usable as `[con_id=N]`. */
  id: number;
  pid: number;
  title: string;
  /** The xdg_shell app_id; for an Xwayland window, its WM_CLASS class; null when unset. */
  appId: string | null;
  /** 'xdg_shell' or 'xwayland'. */
  shell: string;
  /** The client's content on screen: rect + window_rect. */
  rect: Rect;
  /** The content with sway's title bar and borders around it (what a click can land on). */
  frame: Rect;
  focused: boolean;
  /** Shown now: on its output's current workspace and not a hidden tab. */
  visible: boolean;
  floating: boolean;
  fullscreen: boolean;
  /**
   * The geometry and the border sway reports agree (no layout change in flight): the
   * content's left offset equals the border drawn. False for a few ms after a window
   * appears or its border changes; `rect` may then be off by the title bar's height.
   * A size change in flight does not show here: rect then holds the size the app has
   * been asked for, which it may not have drawn yet.
   */
  settled: boolean;
  /** The workspace's name; '__i3_scratch' for the scratchpad. */
  workspace: string | null;
  output: string | null;
}

class TreeError extends Error {
  override name = 'SwayTreeError';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkRect(v: unknown, where: string): SwayRect {
  if (
    !isObject(v) ||
    ![v.x, v.y, v.width, v.height].every((n) => typeof n === 'number' && Number.isFinite(n))
  ) {
    throw new TreeError(`not a sway GET_TREE reply: ${where} has no numeric x, y, width, height`);
  }
  return v as unknown as SwayRect;
}

/** A view (a client window) rather than a split, workspace or output: it has a shell. */
function isView(n: SwayNode): boolean {
  return typeof n.shell === 'string' || typeof n.pid === 'number';
}

/**
 * Children in the order the user last focused them: ids in `focus` first, then any child
 * the focus list does not name (sway lists them all, but a reply is not ours to trust).
 */
function byFocus(children: SwayNode[], focus: number[] | undefined): SwayNode[] {
  const order = new Map((focus ?? []).map((id, i) => [id, i]));
  return children
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (order.get(a.c.id) ?? Infinity) - (order.get(b.c.id) ?? Infinity) || a.i - b.i)
    .map(({ c }) => c);
}

interface Placed {
  node: SwayNode;
  floating: boolean;
  workspace: string | null;
  output: string | null;
}

/** Views under `n`, most recently focused first (floating children of `n` excluded). */
function viewsByFocus(n: SwayNode, ctx: Omit<Placed, 'node'>, out: Placed[]): void {
  if (isView(n)) {
    out.push({ node: n, ...ctx });
    return;
  }
  for (const c of byFocus(n.nodes ?? [], n.focus)) viewsByFocus(c, ctx, out);
}

function checkNode(v: unknown, where: string): SwayNode {
  if (!isObject(v) || typeof v.id !== 'number' || typeof v.type !== 'string') {
    throw new TreeError(`not a sway GET_TREE reply: ${where} has no numeric id and type`);
  }
  checkRect(v.rect, `${where} (id ${v.id}) rect`);
  for (const key of ['nodes', 'floating_nodes'] as const) {
    if (v[key] !== undefined && !Array.isArray(v[key])) {
      throw new TreeError(`not a sway GET_TREE reply: ${key} of node ${v.id} is not a list`);
    }
  }
  return v as unknown as SwayNode;
}

/** Every node, checked for the shape this module reads (ids, types, rects, child lists). */
function checkTree(v: unknown, where = 'the root'): SwayNode {
  const n = checkNode(v, where);
  for (const c of [...(n.nodes ?? []), ...(n.floating_nodes ?? [])])
    checkTree(c, `a child of ${n.id}`);
  return n;
}

function toWindow(p: Placed): SwayWindow {
  const n = p.node;
  const rect = checkRect(n.rect, `window ${n.id} rect`);
  const inner = checkRect(n.window_rect, `window ${n.id} window_rect`);
  const content: Rect = {
    x: rect.x + inner.x,
    y: rect.y + inner.y,
    w: inner.width,
    h: inner.height,
  };
  // The title bar (deco_rect, absolute) sits above rect, the borders inside it.
  const deco = n.deco_rect && n.deco_rect.height > 0 ? checkRect(n.deco_rect, 'deco') : null;
  const top = deco ? Math.min(deco.y, rect.y) : rect.y;
  const frame: Rect = { x: rect.x, y: top, w: rect.width, h: rect.y + rect.height - top };
  if (typeof n.pid !== 'number' || !Number.isInteger(n.pid)) {
    throw new TreeError(`not a sway GET_TREE reply: window ${n.id} has no pid`);
  }
  const fullscreen = (n.fullscreen_mode ?? 0) !== 0;
  return {
    id: n.id,
    pid: n.pid,
    title: typeof n.name === 'string' ? n.name : '',
    appId:
      typeof n.app_id === 'string' && n.app_id !== ''
        ? n.app_id
        : (n.window_properties?.class ?? null),
    shell: n.shell ?? 'unknown',
    rect: content,
    frame,
    focused: n.focused === true,
    visible: n.visible === true,
    floating: p.floating,
    fullscreen,
    // A fullscreen window has no border whatever its border width says.
    settled:
      fullscreen ||
      typeof n.current_border_width !== 'number' ||
      inner.x === n.current_border_width,
    workspace: p.workspace,
    output: p.output,
  };
}

/**
 * The windows in a GET_TREE reply, front to back as far as sway tells: shown windows before
 * hidden ones; on each workspace a fullscreen window first, then floating windows topmost
 * first, then tiled ones most recently focused first (the focused one first). Outputs and
 * workspaces come in focus order, the focused output first. Throws on a reply that is not
 * a tree (no root, nodes without ids or rects, a window without a pid).
 */
export function windowsFromTree(tree: unknown): SwayWindow[] {
  const root = checkTree(tree);
  if (root.type !== 'root') {
    throw new TreeError(`not a sway GET_TREE reply: the top node is a ${root.type}, not the root`);
  }
  const placed: Placed[] = [];
  for (const output of byFocus(root.nodes ?? [], root.focus)) {
    const outputName = typeof output.name === 'string' ? output.name : null;
    for (const ws of byFocus(output.nodes ?? [], output.focus)) {
      const ctx = {
        workspace: typeof ws.name === 'string' ? ws.name : null,
        output: outputName,
      };
      const floating: Placed[] = [];
      // Last in floating_nodes is drawn on top.
      for (const f of [...(ws.floating_nodes ?? [])].reverse()) {
        viewsByFocus(f, { ...ctx, floating: true }, floating);
      }
      const tiled: Placed[] = [];
      viewsByFocus(ws, { ...ctx, floating: false }, tiled);
      placed.push(...floating, ...tiled);
    }
  }
  const windows = placed.map(toWindow);
  // Stable: keeps the order above within each rank.
  const rank = (w: SwayWindow): number => (!w.visible ? 2 : w.fullscreen ? 0 : 1);
  return windows
    .map((w, i) => ({ w, i }))
    .sort((a, b) => rank(a.w) - rank(b.w) || a.i - b.i)
    .map(({ w }) => w);
}

/** The focused window, or null when focus is on a workspace, an output or nothing. */
export function focusedWindow(windows: SwayWindow[]): SwayWindow | null {
  return windows.find((w) => w.focused) ?? null;
}
