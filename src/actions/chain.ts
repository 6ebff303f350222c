/**
 * Steps in one call (click then type, type then key). Each step waits until the app has
 * processed the one before: the intended effect read back (bounded), then its change
 * events gone quiet, so a Return is not sent while the app still reacts to the typing
 * (a Save button that enables a moment later). Each step reports its own effect.
 */
import type { Delivered, Reading, Scene } from './types.js';
import { irreversible } from './undo.js';

/** How long a step's effect is polled for before the next step goes anyway. */
export const READ_BACK_MS = 400;
const POLL_MS = 20;

export type Step = () => Promise<Delivered>;

export async function deliverChain(scene: Scene, steps: Step[]): Promise<Delivered> {
  const done: Delivered[] = [];
  const notes: string[] = [];
  let restore: (() => Promise<void>) | undefined;
  for (let i = 0; i < steps.length; i++) {
    let step: Delivered;
    try {
      step = await steps[i]();
    } catch (err) {
      // The first step failing is the call failing; put back what an earlier one fronted.
      if (done.length === 0) throw err;
      return combine(done, notes, restore, `a later step failed: ${(err as Error).message}`);
    }
    // The first window put back is the one that was in front before the call.
    restore ??= step.restore;
    done.push(step);
    notes.push(i < steps.length - 1 ? await processed(scene, step) : '');
  }
  return combine(done, notes, restore);
}

/** Wait for a step's effect, then for quiet; says what its read-back showed. */
async function processed(scene: Scene, step: Delivered): Promise<string> {
  let note = '';
  if (step.probe) {
    const reading = await pollReading(step.probe, READ_BACK_MS);
    note =
      reading === 'landed'
        ? ' (confirmed)'
        : reading === 'unreadable'
          ? ' (not readable)'
          : ' (did not read back)';
  }
  await scene.settle();
  return note;
}

/** Read until the effect is there (or cannot be read), bounded by `ms`. */
async function pollReading(probe: () => Promise<Reading>, ms: number): Promise<Reading> {
  const start = Date.now();
  for (;;) {
    const reading = await probe().catch((): Reading => 'absent');
    if (reading !== 'absent' || Date.now() - start >= ms) return reading;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function combine(
  done: Delivered[],
  notes: string[],
  restore: (() => Promise<void>) | undefined,
  error?: string,
): Delivered {
  const last = done[done.length - 1];
  const did = done
    .map((s, i) => (i === 0 ? s.did : lowerFirst(s.did)) + (notes[i] ?? ''))
    .join(', then ');
  return {
    ...last,
    did,
    route: [...new Set(done.map((s) => s.route))].join('+'),
    delivery: done.some((s) => s.delivery === 'foreground') ? 'foreground' : 'background',
    restore,
    // After a failed step the last one that ran is what the verdict reads.
    error,
    // One input is taken back as it is; several (a click, text, a key) are not.
    undo:
      done.length === 1
        ? last.undo
        : irreversible('it sent several inputs in one call (click, text, key)'),
  };
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}
