/**
 * What the agent has been shown in this server session, so a summary lists only what
 * is new to it. One memory per Pipeline (per server process).
 *
 * The rule (also in docs/paged-response.md):
 * - An element counts as shown once a summary listed it in visible_elements or counted
 *   it in that list's `(+N more in file)`: both send the agent to that call's file,
 *   which lists every element. The memory keeps, per ref, what the element looked like
 *   then (role, text, value, states, frame) and the file's basename.
 * - A later summary lists the visible elements that were never shown or whose look
 *   changed since, and says how many others are unchanged and since which file: the
 *   latest file among theirs (each of them is unchanged since its own, earlier or equal,
 *   and every tree file holds the whole tree, so that file lists them all as they are).
 * - A handoff's app_switch list counts as shown too (all of that app's visible
 *   elements, listed or counted there).
 * - A dialog that was not up at the app's previous call lists in full, even when its
 *   elements were shown before (a dialog opened again): the agent's focus moved there.
 * - `detail: "full"` lists them all again (capped as ever) and records them afresh.
 * - Reads that answer with a result (find, get_value, …) list no visible elements and
 *   record nothing.
 * - A summary the last guard masked (it seemed to echo a secret) showed nothing as it
 *   was: what it recorded is forgotten, and listed again.
 */
import type { SnapshotView } from '../model/view.js';
import type { VisibleItem } from '../summary/index.js';

/** Refs remembered at most; the oldest are forgotten first (then listed again if seen). */
export const SHOWN_MAX_REFS = 50_000;

/** `AXPAGE_VISIBLE=full`: every call lists visible elements in full, as before the memory. */
export type VisibleMode = 'new' | 'full';

/** What an element looked like when shown: everything its summary line says. */
export function lookOf(item: VisibleItem): string {
  const f = item.frame ?? { x: 0, y: 0, w: 0, h: 0 };
  return [
    item.role,
    item.text,
    item.value ?? '',
    (item.states ?? []).join(' '),
    `${Math.round(f.x)},${Math.round(f.y)},${Math.round(f.w)},${Math.round(f.h)}`,
  ].join('\u0000');
}

export interface Partition {
  /** Never shown, or shown with another look: these are listed. */
  fresh: VisibleItem[];
  /** The looks of `fresh`, in its order. */
  freshLooks: string[];
  /** Shown before and unchanged. */
  unchanged: VisibleItem[];
  /** The latest file basename among the unchanged ones ('' when none). */
  since: string;
}

export class ShownMemory {
  private readonly seen = new Map<string, { look: string; file: string; seq: number }>();
  /** Per pid, the ref of the dialog that scoped its last published view ('' for none). */
  private readonly dialogs = new Map<number, string>();
  private seq = 0;

  constructor(private readonly maxRefs = SHOWN_MAX_REFS) {}

  /** Splits the candidates (rank order kept) into fresh and unchanged. */
  partition(items: readonly VisibleItem[], looks: readonly string[]): Partition {
    const fresh: VisibleItem[] = [];
    const freshLooks: string[] = [];
    const unchanged: VisibleItem[] = [];
    let since = '';
    let sinceSeq = -1;
    items.forEach((item, k) => {
      const prior = item.ref ? this.seen.get(item.ref) : undefined;
      if (prior && prior.look === looks[k]) {
        unchanged.push(item);
        if (prior.seq > sinceSeq) {
          sinceSeq = prior.seq;
          since = prior.file;
        }
      } else {
        fresh.push(item);
        freshLooks.push(looks[k]);
      }
    });
    return { fresh, freshLooks, unchanged, since };
  }

  /** Records the items as shown in `file` (a basename); unchanged ones keep their file. */
  record(items: readonly VisibleItem[], looks: readonly string[], file: string, all = false): void {
    const seq = ++this.seq;
    items.forEach((item, k) => {
      if (!item.ref) return;
      const prior = this.seen.get(item.ref);
      if (!all && prior && prior.look === looks[k]) return;
      this.seen.delete(item.ref);
      this.seen.set(item.ref, { look: looks[k], file, seq });
    });
    while (this.seen.size > this.maxRefs) {
      const oldest = this.seen.keys().next().value as string;
      this.seen.delete(oldest);
    }
  }

  /**
   * Forgets what a call's summary recorded as shown (`file`, its basename): a summary
   * masked for a secret it seemed to echo did not show its elements as they are, and the
   * next summary lists them again rather than counting them unchanged since that file.
   */
  forget(file: string): void {
    for (const [ref, s] of this.seen) if (s.file === file) this.seen.delete(ref);
  }

  /**
   * Notes which dialog (by ref, '' for none) scopes this view of its app; true
   * when it is a dialog that was not up at the app's previous call.
   */
  dialogAppeared(view: SnapshotView): boolean {
    const appeared = this.dialogWouldAppear(view);
    this.dialogs.set(view.snapshot.pid, dialogRefOf(view));
    return appeared;
  }

  /** What dialogAppeared would answer, without noting anything. */
  dialogWouldAppear(view: SnapshotView): boolean {
    const dialogRef = dialogRefOf(view);
    return dialogRef !== '' && dialogRef !== this.dialogs.get(view.snapshot.pid);
  }

  get size(): number {
    return this.seen.size;
  }
}

function dialogRefOf(view: SnapshotView): string {
  return view.dialog ? (view.refs[view.dialog.index] ?? '?') : '';
}
