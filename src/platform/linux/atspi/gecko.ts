/**
 * Gecko (Firefox, Thunderbird) through the at-spi2 ATK bridge.
 *
 * Action strings: Gecko's AtkAction callbacks (name, localized name, description, key
 * binding) all return the SAME static buffer, refilled by each call. The bridge's
 * `Action.GetActions` asks for all four strings of an action before it appends them to its
 * reply, so every string in the reply is the last one asked (the key binding: ";;"), and
 * when refilling the buffer reallocates it the earlier pointers dangle: libdbus then finds
 * bytes that are not UTF-8 and aborts the whole browser in
 * `dbus_message_iter_append_basic`. `GetName(i)`, `GetDescription(i)` and `GetKeyBinding(i)`
 * fetch one string and append it at once, which is safe: for Gecko the actions are read
 * one call per string (action-strings.ts), and `GetActions` is never sent.
 */
import type { Element, Snapshot } from '../../../model/element.js';
import type { AtspiBus, ObjectRef } from './bus.js';
import { directCall, type CallFn } from './read.js';
import { toolkitName } from './toolkit.js';

const ACCESSIBLE = 'org.a11y.atspi.Accessible';
const SELECTION = 'org.a11y.atspi.Selection';

/** Toolkits whose action strings share one buffer (see above). */
const SHARED_BUFFER_TOOLKITS = /^gecko$/i;

/**
 * Whether the app's action strings must be read one by one: asked once per app (its
 * toolkit); an app that does not answer is taken as safe to ask the usual way, since every
 * toolkit but Gecko answers GetActions correctly.
 */
export async function actionsOneByOne(bus: AtspiBus, appBus: string): Promise<boolean> {
  return SHARED_BUFFER_TOOLKITS.test(await toolkitName(directCall(bus), appBus));
}

/** AtspiRole INTERNAL_FRAME: where a browser hangs a web document into its window. */
const INTERNAL_FRAME = 28;

/**
 * Whether an element's children must be listed live, whatever the bridge's cache says.
 * Gecko's web documents live in content processes and are attached to the browser's
 * internal frame later than the cache learns of the frame: the cache keeps "0 children"
 * for a frame that has its document (seen on every fresh Firefox, and for every new page),
 * so a cached walk would show a browser without its page.
 */
export function childrenLiveOnly(role: number): boolean {
  return role === INTERNAL_FRAME;
}

/** How long a walk waits at most for a page the browser has not attached yet. */
export const PAGE_WAIT_MS = 4000;
const PAGE_POLL_MS = 200;

/**
 * Why the shown page is not in the walk yet, or null: a showing internal frame without its
 * document (the content process has not attached it), or a showing document with nothing
 * in it (still loading). Hidden tabs are not waited for.
 */
export function pagePending(elements: readonly Element[]): string | null {
  const shown = (e: Element): boolean => !e.flags.includes('offscreen');
  for (const [i, e] of elements.entries()) {
    if (!shown(e)) continue;
    if (e.nativeRole === 'internal frame' && elements[e.parent]?.nativeRole === 'scroll pane') {
      const doc = elements.find((c) => c.parent === i && c.nativeRole === 'document web');
      if (!doc) return 'the page is not attached to the browser window yet';
      if (!shown(doc) || doc.childCount === 0) return 'the page is still loading';
    }
  }
  return null;
}

/**
 * Walks again (every PAGE_POLL_MS) while the shown page is pending, within PAGE_WAIT_MS
 * and the walk's time budget counted from `t0`. A page still missing at the end is said in
 * `truncated`, so the summary tells that the content is still to come.
 */
export async function settlePage(
  first: Snapshot,
  t0: number,
  timeBudgetMs: number,
  walkAgain: () => Promise<Snapshot>,
): Promise<Snapshot> {
  let snap = first;
  const until = t0 + Math.min(PAGE_WAIT_MS, timeBudgetMs);
  let pending = pagePending(snap.elements);
  while (pending && !snap.truncated && performance.now() + PAGE_POLL_MS < until) {
    await new Promise((r) => setTimeout(r, PAGE_POLL_MS));
    snap = await walkAgain();
    pending = pagePending(snap.elements);
  }
  if (pending) snap.truncated ??= pending;
  snap.elapsedMs = Math.round((performance.now() - t0) * 10) / 10;
  return snap;
}

/**
 * Firefox answers EditableText's SetTextContents and InsertText with "done" and changes
 * nothing (web pages live in content processes, and the browser does not pass the edit
 * on): an edit that would report success without effect is refused instead, so the caller
 * can type with real key events. The reason, or null when the app takes such edits.
 */
export async function textEditIgnored(bus: AtspiBus, appBus: string): Promise<string | null> {
  if (!(await actionsOneByOne(bus, appBus))) return null;
  return 'Firefox ignores text edits made through accessibility (it acknowledges them and changes nothing)';
}

/** An astral character (emoji, math letters) followed by Gecko's padding U+FEFF. */
const PADDED_ASTRAL = /([\u{10000}-\u{10FFFF}])\uFEFF/gu;
/** U+FFFC, the placeholder hypertext puts for each embedded child (link, field, frame). */
const EMBEDDED_OBJECT = /\uFFFC/g;

/**
 * Text as the user sees it. Gecko pads each character beyond the BMP with U+FEFF (so its
 * offsets count like UTF-16), and every hypertext (Gecko, Chromium) stands U+FFFC in for
 * each child element, which the walk lists on its own: a window's text would otherwise
 * read "￼￼￼", and an emoji would not compare equal to the one typed.
 */
export function visibleText(s: string): string {
  return s.replace(PADDED_ASTRAL, '$1').replace(EMBEDDED_OBJECT, '');
}

/**
 * Chooses an option of a web page's select through its list's Selection interface: Gecko
 * answers the option's own "select" action with "done" and leaves the choice unchanged
 * (while the list is collapsed), but takes Selection.SelectChild. False when the option's
 * parent has no Selection interface (the caller then runs the action).
 */
export async function selectInParent(
  call: CallFn,
  ref: ObjectRef,
  parent: ObjectRef | undefined,
): Promise<boolean> {
  if (!parent) return false;
  const [ifaces] = await call(parent[0], parent[1], ACCESSIBLE, 'GetInterfaces');
  if (!(ifaces as string[]).includes(SELECTION)) return false;
  const [index] = await call(ref[0], ref[1], ACCESSIBLE, 'GetIndexInParent');
  const [ok] = await call(parent[0], parent[1], SELECTION, 'SelectChild', 'i', [index as number]);
  return ok === true;
}
