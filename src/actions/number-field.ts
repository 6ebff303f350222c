/**
 * Text typed into a field that holds a number (a spin button): a number it types is
 * checked against the field's range before anything is typed; other text (an app that
 * reads its text its own way: a time "13:45", a month "May", "0x1F") goes as typed, for
 * the app to parse. After typing it is committed the way the toolkit commits it (its
 * action, else its key in the field), so the value follows the text. The summary says the
 * value before and after, read from the value itself, and the text the field then shows.
 */
import type { Element } from '../model/element.js';
import { pollFor } from '../model/timeout.js';
import { AxError } from '../errors.js';
import { READ_BACK_MS } from './chain.js';
import { backgroundImpossible } from './escalation.js';
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

/** Text that reads as a plain number (decimal, signed, with a fraction or exponent). */
const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export interface NumberField {
  was: number;
  /** The value the typed text means; undefined: text the app reads its own way. */
  want: number | undefined;
  /** Commits the typed text; resolves to what the summary says about the value. */
  commit(delivery: 'background' | 'foreground'): Promise<string>;
  probe(): Promise<Reading>;
}

/**
 * The number field `element` is, with the number `text` will make it (`expected`: the
 * whole text it will read); undefined when it is not one. Throws, before anything is
 * typed, when the text is a number out of its range, or text of the app's own that the
 * delivery cannot have it parse (no commit through accessibility in the background).
 */
export async function numberField(
  scene: Scene,
  element: Element | undefined,
  label: string,
  expected: string | undefined,
  delivery: 'background' | 'foreground' = 'background',
): Promise<NumberField | undefined> {
  const { desktop } = scene;
  if (!element || !NUMBER_FIELD_ROLES.has(element.role) || expected === undefined) return undefined;
  const range = await desktop.readValue(element.id).catch(() => undefined);
  if (!range) return undefined;
  const typed = expected.trim();
  const bounds = `${range.min}..${range.max}`;
  const numeric = NUMERIC.test(typed);
  const want = numeric ? Number(typed) : undefined;
  if (typed === '' || (want !== undefined && (want < range.min || want > range.max))) {
    throw new AxError(
      'bad_argument',
      `${label} takes a number in ${bounds}, and its text would read '${expected}'`,
      `Type a number in ${bounds} (clear_first replaces the text), or use ax_set_value; nothing was typed`,
    );
  }
  const route = desktop.commitRoute(element);
  if (want === undefined && delivery === 'background') {
    // The app's own reading of its text runs only when the text is committed.
    if (route.via !== 'action' || !element.flags.includes('editable')) {
      throw backgroundImpossible(
        'type',
        `${label} reads text that is not a plain number ('${typed}') only when it is committed, on ${route.via === 'key' ? route.key : 'a key'} in the field, which accessibility cannot send`,
        'Use delivery_mode "foreground" (the text is typed and committed there), or ax_set_value with the number it stands for',
      );
    }
  }
  // The value the field holds is the number typed, not one near it: a field that rounds to
  // its step (30 s in a time field) keeps another, and says so.
  const tolerance = want === undefined ? 0 : 1e-9 * Math.max(1, Math.abs(want));
  const readValue = () => desktop.readValue(element.id).then((v) => v.value);
  const readText = () => desktop.readText(element.id).then((t) => t?.trim());
  // The field shows the typed text, within the prefix or suffix it keeps (Qt's " px").
  const shows = (text: string | undefined): boolean =>
    text !== undefined && (text === typed || (want !== undefined && text.includes(typed)));
  const landed = async (): Promise<boolean> =>
    want === undefined
      ? // Text of the app's own lands when the field shows it with a value behind it: an
        // app that did not parse it puts back the text of the value it kept.
        (await readText()) === typed
      : Math.abs((await readValue()) - want) <= tolerance;
  return {
    was: range.value,
    want,
    probe: async () => ((await landed().catch(() => false)) ? 'landed' : 'absent'),
    async commit(delivery) {
      // Keys typed in the foreground reach the app by another channel than an action: the
      // commit waits (bounded) until the field reads the whole text, or it commits a part.
      await pollFor(
        async () => shows(await readText().catch(() => undefined)),
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
        // Text of the app's own format has no number to set: only its commit parses it.
        if (want === undefined) {
          return `; not committed: ${label} would take it on its activate action, which here presses the dialog's default button (delivery_mode "foreground" commits it with Tab)`;
        }
        await desktop.setValue(element.id, want);
        how = ` (its value set to the number typed: ${enter} would press the dialog's default button)`;
      } else {
        // Its commit key needs the foreground; its value takes the number the text says.
        try {
          await desktop.setValue(element.id, want ?? NaN);
        } catch {
          return `; not committed: ${label} takes its value on ${route.key} in the field (delivery_mode "foreground" sends it)`;
        }
        how = ' (its value set to the number typed)';
      }
      if (want === undefined) return ownReading(how);
      if (!(await pollFor(() => landed().catch(() => false), READ_BACK_MS, POLL_MS))) {
        const now = await desktop.readValue(element.id).catch(() => undefined);
        if (now === undefined) return gone(how);
        return `, committed${how}: value ${range.value} → ${now.value} (not ${want})`;
      }
      // An app may read its text its own way (hexadecimal, a time): then the number set is
      // not what the text typed means to it.
      const shown =
        how && delivery === 'background' ? await readText().catch(() => undefined) : undefined;
      const differs =
        shown !== undefined && shown !== typed
          ? `; its text reads '${shown}', not '${typed}': the app may read text otherwise (delivery_mode "foreground" types it)`
          : '';
      return `, committed${how}: value ${range.value} → ${want}${differs}`;
    },
  };

  /** A field gone with its window (a key that closed a dialog): what it took is not readable. */
  async function gone(how: string): Promise<string> {
    const missing = await desktop.readElement(element!.id).then(
      () => false,
      () => true,
    );
    return missing
      ? `, committed${how}: value ${range!.value} → unreadable (${label} is gone, its window closed: check the value where the app keeps it)`
      : `, committed${how}: value ${range!.value} → unreadable`;
  }

  /**
   * Text the app parses its own way: what it made of it is its value and the text it
   * shows then, read once either differs from before the commit (an app that did not
   * take it puts back the text of the value it kept).
   */
  async function ownReading(how: string): Promise<string> {
    const settled = async (): Promise<boolean> => {
      const [value, text] = await Promise.all([readValue(), readText()]);
      return value !== range!.value || text !== typed;
    };
    await pollFor(() => settled().catch(() => true), READ_BACK_MS, POLL_MS);
    const [value, text] = await Promise.all([
      readValue().catch(() => undefined),
      readText().catch(() => undefined),
    ]);
    if (value === undefined) return gone(how);
    const shows = text === undefined ? '' : `; its text reads '${text}'`;
    if (text === typed) return `, committed${how}: value ${range!.value} → ${value}${shows}`;
    return `, committed${how}: value ${range!.value} → ${value}${shows}, not '${typed}': the app did not take the text as typed`;
  }
}
