/**
 * Who offers a selection, and whether its text may be read out or pasted as plain text.
 * With a deny list, or in safe mode, a selection is read only when an app this server may
 * read vouches for it:
 * - its owner (the X client's process, or the process it forked from, or its session's
 *   leader: a helper such as xclip serves for the app that ran it) is not denied;
 * - it is this server's own (ax_clipboard_write), or one of those processes is an app on
 *   the desktop's accessibility bus: a helper that cut every tie (a session of its own,
 *   its parent gone) vouches for nothing, and a denied app's helper may be one;
 * - in safe mode, that app shows the text: a password manager copies an entry's password
 *   when its row is activated, with no password field on screen; what it copies then is
 *   shown nowhere. A copy of text on screen (a selection, a label's Copy) is.
 * In full mode without a deny list, nothing is asked: the agent may read what apps copy,
 * except what came from a password field (SelectionSecrets).
 */
import type { Element } from '../model/element.js';
import type { Desktop, SnapshotOptions } from '../platform/desktop.js';
import type { DeniedApps } from './denied.js';
import type { SelectionName, SelectionOwner } from './transfers.js';

/** Said of a selection an app this server may not read offers, or one nothing vouches for. */
export const HIDDEN_OWNER = 'its owner is not readable by this server';
const NO_APP = 'in safe mode only text an app shows is read, and no app owns this';
const NOT_SHOWN = 'in safe mode only text its app shows is read, and this app does not show it';

export interface OwnerRules {
  safe: boolean;
  denied: DeniedApps;
  /** This server's process: a selection its own helper owns is what ax_clipboard_write put. */
  self: number;
  /** Limits for the walk of the owner's app (safe mode). */
  limits: SnapshotOptions;
}

/** Who offers a selection, as far as the desktop can tell. */
type Owner =
  { kind: 'none' } | { kind: 'unknown' } | { kind: 'gone' } | { kind: 'process'; family: number[] };

export function selectionOwner(desktop: () => Promise<Desktop>, rules: OwnerRules): SelectionOwner {
  const ownerOf = async (d: Desktop, selection: SelectionName): Promise<Owner> => {
    if (!d.selectionOwner) return { kind: 'unknown' };
    const owner = await d.selectionOwner(selection);
    if (owner == null) return { kind: 'none' };
    // The pid the X server knows is the one that connected: a helper that forked into the
    // background after (xclip, as pass -c runs it) serves from a child of a process gone.
    if (!(await d.isRunning(owner))) return { kind: 'gone' };
    return { kind: 'process', family: [owner, ...((await d.ancestors?.(owner)) ?? [])] };
  };
  /** The app on the accessibility bus the family belongs to, if any. */
  const appOf = async (d: Desktop, family: number[]) => {
    const apps = new Set((await d.listApps()).map((a) => a.pid));
    return family.find((pid) => apps.has(pid));
  };
  return {
    async check(selection, textOf) {
      if (!rules.safe && !rules.denied.active) return undefined;
      const d = await desktop();
      const owner = await ownerOf(d, selection);
      if (owner.kind === 'none') return undefined; // nobody offers anything
      if (owner.kind !== 'process')
        return owner.kind === 'gone' || rules.denied.active ? HIDDEN_OWNER : NO_APP;
      const { family } = owner;
      if ((await rules.denied.deniedPids(d, family)).size > 0) return HIDDEN_OWNER;
      if (family.includes(rules.self)) return undefined;
      const app = await appOf(d, family);
      if (app === undefined) return rules.safe ? NO_APP : HIDDEN_OWNER;
      if (!rules.safe) return undefined;
      const text = await textOf();
      if (!text) return undefined;
      const snapshot = await d.snapshot(app, rules.limits);
      return showsText(snapshot.elements, text) ? undefined : NOT_SHOWN;
    },
    async whose(selection) {
      const d = await desktop();
      const owner = await ownerOf(d, selection);
      if (owner.kind === 'unknown') return undefined;
      if (owner.kind !== 'process') return null;
      if (owner.family.includes(rules.self)) return 'self';
      return (await appOf(d, owner.family)) ?? null;
    },
  };
}

/** Whitespace as one space: a copy joins and breaks lines its own way. */
const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * Whether every line of `text` is in the name, value or description of an element: what a
 * copy of a selection, a cell or a label holds. A password field's value is not there (the
 * walk withholds it).
 */
export function showsText(elements: readonly Element[], text: string): boolean {
  const lines = new Set(text.split(/\r?\n/).map(collapse));
  lines.delete('');
  if (lines.size === 0) return true;
  const shown = elements
    .flatMap((e) => [e.name, e.value ?? '', e.description ?? ''])
    .map(collapse)
    .filter((s) => s !== '')
    .join('\u0000');
  for (const line of lines) if (!shown.includes(line)) return false;
  return true;
}
