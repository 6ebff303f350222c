/**
 * Typing key by key, each key sent once the app has shown it took the one before. An app
 * whose keys are buttons' shortcuts (a calculator) clicks the button a moment after the
 * press and swallows a press of a button still down: a burst of keys loses every repeat.
 * The app's change events say when a key was taken: the first change after it that is not
 * a button going down, and no button left down.
 */
import { scaledByLoad, sleep } from '../model/timeout.js';
import type { Change } from '../platform/desktop.js';
import type { Scene } from './types.js';

/** How long one key may take to show (a button's click comes ~100 ms after its press). */
const KEY_TAKEN_MS = 400;
const KEY_TAKEN_MAX_MS = 2000;
/**
 * A key's change events come in a burst (a calculator's display, then every readout that
 * follows it): the next key waits for this long a pause in them, so that the burst's tail
 * is not taken for the app's answer to the next key.
 */
const QUIET_MS = 30;
const QUIET_MAX_MS = 150;
/** An app that says nothing: the same key again waits this long after its last press. */
const REPEAT_GAP_MS = 150;
const REPEAT_GAP_MAX_MS = 600;

export interface PacedTyping {
  /**
   * Elements whose text, name or value changed while the keys went (no state change):
   * where the app shows what it took.
   */
  shownIn: string[];
  /** The app said nothing after the first key: the keys were spaced by time alone. */
  silent: boolean;
}

/** The keys one at a time (a CRLF stays one Return, as typeText types it). */
export function keyUnits(text: string): string[] {
  const units: string[] = [];
  for (const ch of text) {
    if (ch === '\n' && units.at(-1) === '\r') units[units.length - 1] = '\r\n';
    else units.push(ch);
  }
  return units;
}

/** Types `text` into the app `scene.pid` (fronted, its focus set) key by key, as it takes them. */
export async function typePaced(scene: Scene, text: string): Promise<PacedTyping> {
  const { desktop } = scene;
  const units = keyUnits(text);
  const shown = new Set<string>();
  let events = 0;
  let lastEventAt = 0;
  const down = new Set<string>();
  let wake: (() => void) | undefined;
  const onChange = (c: Change): void => {
    if (c.lost) return;
    if (c.flag === 'pressed') {
      if (c.on) down.add(c.elementId);
      else down.delete(c.elementId);
    } else if (c.flag === undefined && c.elementId !== '') shown.add(c.elementId);
    lastEventAt = Date.now();
    // A button going down is the press itself, not the app taking the key.
    if (c.flag !== 'pressed' || !c.on) events++;
    wake?.();
  };
  const stop = await Promise.resolve()
    .then(() => desktop.watchChanges(scene.pid, onChange))
    .catch(() => undefined);
  let silent = stop === undefined;
  const sentAt = new Map<string, number>();
  const gap = scaledByLoad(REPEAT_GAP_MS, REPEAT_GAP_MAX_MS);
  try {
    for (let i = 0; i < units.length; i++) {
      const unit = units[i];
      if (silent) {
        const wait = (sentAt.get(unit) ?? -Infinity) + gap - Date.now();
        if (wait > 0) await sleep(wait);
      }
      const from = events;
      sentAt.set(unit, Date.now());
      await desktop.typeText(unit);
      if (silent || i === units.length - 1) continue;
      const bound = scaledByLoad(KEY_TAKEN_MS, KEY_TAKEN_MAX_MS);
      const taken = await until(
        () => events > from && down.size === 0,
        bound,
        (w) => (wake = w),
      );
      wake = undefined;
      if (taken) await quiet(() => lastEventAt, scaledByLoad(QUIET_MS, QUIET_MAX_MS), bound);
      // Nothing tells when this app takes a key: spaced by time from here on.
      else if (events === from && i === 0) silent = true;
    }
  } finally {
    await stop?.().catch(() => undefined);
  }
  return { shownIn: [...shown], silent };
}

/** Whether `done` held within `ms`, checked whenever `arm`'s waker is called. */
function until(done: () => boolean, ms: number, arm: (wake: () => void) => void): Promise<boolean> {
  if (done()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(done()), ms);
    arm(() => {
      if (!done()) return;
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Waits until no event came for `pauseMs` (the last at `last()`), at most `boundMs`. */
async function quiet(last: () => number, pauseMs: number, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const left = last() + pauseMs - Date.now();
    if (left <= 0 || Date.now() >= deadline) return;
    await sleep(Math.min(left, deadline - Date.now()));
  }
}
