/**
 * Keys go to the focused window of the app a call is on; when its window holds a window of
 * another process (an XEmbed plug), the app passes them on into the plug while the focus is
 * there (a Tab takes it there). A plug whose controls this server does not read is one the
 * guards cannot judge: a denied app's (its tree is kept out of every walk), and in safe mode
 * one whose tree the walk did not enter (no accessibility: a password field may be in it).
 * Keys for such an app go only while an element of the app's tree outside every such plug
 * says it has the keyboard focus, read as the key is about to go; otherwise nothing is sent.
 */
import type { Element, Rect, Snapshot } from '../model/element.js';
import type { Desktop } from '../platform/desktop.js';
import { AxError } from '../errors.js';
import { withOverrides } from './desktop-view.js';
import { contains } from '../viewport/geometry.js';

export interface PlugKeyRules {
  /** The app the call is on. */
  pid: number;
  /** The call's latest walk of it. */
  view: () => Snapshot;
  /** Whether the app of this pid is denied. */
  denied: (pid: number) => Promise<boolean>;
  /** Safe mode: a plug the walk did not enter counts too. */
  safe: boolean;
}

/** A plug the guards cannot judge: where it is and why. */
interface UnseenPlug {
  pid: number | null;
  frame: Rect;
  why: string;
}

export function keysOffUnseenPlugs(desktop: Desktop, rules: PlugKeyRules): Desktop {
  if (!desktop.embeddedWindows) return desktop;
  const check = async (what: string): Promise<void> => {
    const unseen = await unseenPlugs(desktop, rules);
    if (unseen.length === 0) return;
    const outside = (el: Element): boolean =>
      !!el.frame && !unseen.some((p) => contains(p.frame, el.frame!));
    const candidates = rules
      .view()
      .elements.filter((el) => el.flags.includes('focused') && outside(el));
    for (const el of candidates) {
      if (await desktop.hasFocus(el.id).catch(() => false)) return;
    }
    const plug = unseen[0];
    throw new AxError(
      'blocked',
      `the keyboard focus may be inside a window that ${plug.pid === null ? 'another process' : `another process (pid ${plug.pid})`} draws in this app's window, ${plug.why}: no element of this app says it has the focus, so ${what} was not sent`,
      'Give the keyboard focus to an element of this app first (ax_click it in the background), then send the keys',
    );
  };
  return withOverrides(desktop, {
    pressKey: async (combo) => {
      await check('the key');
      return desktop.pressKey(combo);
    },
    typeText: async (text) => {
      await check('the text');
      return desktop.typeText(text);
    },
  });
}

async function unseenPlugs(desktop: Desktop, rules: PlugKeyRules): Promise<UnseenPlug[]> {
  // Its popups too: an open menu or prompt of it holds the keyboard, plugs and all.
  const popups = ((await desktop.popupWindows?.()) ?? []).flatMap((p) =>
    p.pid === rules.pid ? [{ id: p.id, pid: p.pid, title: '', frame: p.frame, active: false }] : [],
  );
  const windows = [...popups, ...(await desktop.listWindows(rules.pid))];
  const plugs = ((await desktop.embeddedWindows?.(windows)) ?? []).filter(
    (p) => p.pid !== rules.pid,
  );
  if (plugs.length === 0) return [];
  const entered = new Set(rules.view().enteredApps ?? []);
  const out: UnseenPlug[] = [];
  for (const p of plugs) {
    if (p.pid !== null && (await rules.denied(p.pid))) {
      // Neither its pid nor that it is denied is told: no answer names a denied app.
      out.push({ pid: null, frame: p.frame, why: 'whose controls this server does not read' });
    } else if (rules.safe && (p.pid === null || !entered.has(p.pid))) {
      out.push({
        pid: p.pid,
        frame: p.frame,
        why: 'whose controls this server does not read (it has no accessibility), and this server runs in safe mode',
      });
    }
  }
  return out;
}
