/**
 * Text typed into a field that holds a number (a spin button): the text it will read is
 * checked against the field's range before anything is typed, and after typing it is
 * committed the way the toolkit commits it (Enter in the field), so the value follows the
 * text. The summary says the value before and after, read from the value itself.
 */
import type { Element } from '../model/element.js';
import { pollFor } from '../model/timeout.js';
import { AxError } from '../errors.js';
import { READ_BACK_MS } from './chain.js';
import type { Reading, Scene } from './types.js';

const POLL_MS = 20;

/** Whether `element` is in a dialog of its app (found by its top-level ancestor). */
function inDialog(scene: Scene, element: Element): boolean {
  const els = scene.view.snapshot.elements;
  let i = els.findIndex((e) => e === element || (element.id !== '' && e.id === element.id));
  while (i >= 0 && els[i].parent >= 0) i = els[i].parent;
  const win = scene.view.snapshot.windows.find((w) => w.index === i);
  return win !== undefined && (win.dialog || win.modal);
}

/** Roles whose text is a number with a value behind it. */
const NUMBER_FIELD_ROLES: ReadonlySet<string> = new Set(['AXIncrementor']);

export interface NumberField {
  was: number;
  /** The value the typed text means. */
  want: number;
  /** Commits the typed text; resolves to what the summary says about the value. */
  commit(delivery: 'background' | 'foreground'): Promise<string>;
  probe(): Promise<Reading>;
}

/**
 * The number field `element` is, with the number `text` will make it (`expected`: the
 * whole text it will read); undefined when it is not one. Throws, before anything is
 * typed, when the text is not a number in its range.
 */
export async function numberField(
  scene: Scene,
  element: Element | undefined,
  label: string,
  expected: string | undefined,
): Promise<NumberField | undefined> {
  const { desktop } = scene;
  if (!element || !NUMBER_FIELD_ROLES.has(element.role) || expected === undefined) return undefined;
  const range = await desktop.readValue(element.id).catch(() => undefined);
  if (!range) return undefined;
  const want = expected.trim() === '' ? NaN : Number(expected);
  const bounds = `${range.min}..${range.max}`;
  if (!Number.isFinite(want) || want < range.min || want > range.max) {
    throw new AxError(
      'bad_argument',
      `${label} takes a number in ${bounds}, and its text would read '${expected}'`,
      `Type a number in ${bounds} (clear_first replaces the text), or use ax_set_value; nothing was typed`,
    );
  }
  // The value the field holds is the number typed, not one near it: a field that rounds to
  // its step (30 s in a time field) keeps another, and says so.
  const tolerance = 1e-9 * Math.max(1, Math.abs(want));
  const landed = async (): Promise<boolean> =>
    Math.abs((await desktop.readValue(element.id)).value - want) <= tolerance;
  return {
    was: range.value,
    want,
    probe: async () => ((await landed().catch(() => false)) ? 'landed' : 'absent'),
    async commit(delivery) {
      const route = desktop.commitRoute(element);
      // Keys typed in the foreground reach the app by another channel than an action: the
      // commit waits (bounded) until the field reads the whole text, or it commits a part.
      await pollFor(
        async () =>
          (await desktop.readText(element.id).catch(() => undefined))?.trim() === expected.trim(),
        READ_BACK_MS,
        POLL_MS,
      );
      let how = '';
      // A dialog's field passes Enter on to its default button (Qt's spin box once it took
      // the key; GTK's "activate" with activates-default), which closes the dialog.
      const defaulted =
        inDialog(scene, element) && (route.via === 'action' || route.key === 'Return');
      const enter = route.via === 'key' ? route.key : 'Enter';
      if (route.via === 'action' && !defaulted) await desktop.doAction(element.id, route.action);
      else if (delivery === 'foreground') {
        // The field's own focus-out commits it with nothing else done.
        const key = route.via === 'key' && !defaulted ? route.key : 'Tab';
        await desktop.pressKey({ key, modifiers: [] });
        if (defaulted) how = ` with Tab (${enter} would press the dialog's default button)`;
      } else if (route.via === 'action') {
        await desktop.setValue(element.id, want);
        how = ` (its value set to the number typed: ${enter} would press the dialog's default button)`;
      } else {
        // Its commit key needs the foreground; its value takes the number the text says.
        try {
          await desktop.setValue(element.id, want);
        } catch {
          return `; not committed: ${label} takes its value on ${route.key} in the field (delivery_mode "foreground" sends it)`;
        }
        how = ' (its value set to the number typed)';
      }
      if (!(await pollFor(() => landed().catch(() => false), READ_BACK_MS, POLL_MS))) {
        const now = await desktop.readValue(element.id).catch(() => undefined);
        if (now === undefined) {
          // Gone with its window (a key that closed a dialog): what it took is not readable.
          const gone = await desktop.readElement(element.id).then(
            () => false,
            () => true,
          );
          return gone
            ? `, committed${how}: value ${range.value} → unreadable (${label} is gone, its window closed: check the value where the app keeps it)`
            : `, committed${how}: value ${range.value} → unreadable`;
        }
        return `, committed${how}: value ${range.value} → ${now.value} (not ${want})`;
      }
      // An app may read its text its own way (hexadecimal, a time): then the number set is
      // not what the text typed means to it.
      const shown =
        how && delivery === 'background'
          ? await desktop.readText(element.id).catch(() => undefined)
          : undefined;
      const differs =
        shown !== undefined && shown.trim() !== expected.trim()
          ? `; its text reads '${shown.trim()}', not '${expected.trim()}': the app may read text otherwise (delivery_mode "foreground" types it)`
          : '';
      return `, committed${how}: value ${range.value} → ${want}${differs}`;
    },
  };
}
