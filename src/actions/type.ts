/**
 * Typing: text inserted through accessibility in the background (read back afterwards),
 * real key events into the field in the foreground. Without a named field the text goes
 * to the focused element, else to the one editable field of the front window.
 */
import { AxError } from '../errors.js';
import { pollFor, scaledByLoad } from '../model/timeout.js';
import { FOCUS_UNCONFIRMED, takeFocus } from './aim.js';
import { backgroundImpossible, textUnreachable } from './escalation.js';
import { fronted } from './front.js';
import { numberField } from './number-field.js';
import type { ActionTarget, Delivered, Delivery, Reading, Scene } from './types.js';
import { assertEnabled, assertTypeable } from './validate.js';
import { guardTarget, guardTextAtFocus, guardTextKeys, typeKeyByKey } from './password-guard.js';
import { restoreText, restoreValue, SECRET_NOT_KEPT } from './undo.js';
import { typePaced } from './paced-typing.js';

export interface TypeRequest {
  /** The field the call named; without one, see fieldFor. */
  target?: ActionTarget;
  text: string;
  clearFirst: boolean;
  mode?: Delivery;
}

export async function deliverType(scene: Scene, req: TypeRequest): Promise<Delivered> {
  const { desktop } = scene;
  const { text, clearFirst } = req;
  assertTypeable(text);
  guardTextKeys(scene, text);
  const background = req.mode !== 'foreground';
  const field = fieldFor(scene, req.target, background);
  assertEnabled(field);
  const { element, label } = field;
  await guardTarget(scene, field);
  const secure = element?.flags.includes('secure') ?? false;
  // A secret's length is a secret too.
  const chars = secure ? 'the text' : `${[...text].length} chars`;
  const current =
    element && !secure ? await desktop.readText(element.id).catch(() => undefined) : undefined;
  // The text read for the verdict is also the way back (never a password's).
  const undo = secure ? SECRET_NOT_KEPT : restoreText(field, current);
  const expected = clearFirst ? text : current !== undefined ? current + text : undefined;
  // A spin button: the text must make a number in its range, and its value is what lands.
  const number = secure
    ? undefined
    : await numberField(scene, element, label, expected, background ? 'background' : 'foreground');
  const probe: (() => Promise<Reading>) | undefined = secure
    ? () => Promise.resolve('unreadable')
    : number
      ? number.probe
      : element && expected !== undefined
        ? async () => ((await desktop.readText(element.id)) === expected ? 'landed' : 'absent')
        : undefined;
  if (background) {
    // A spin button without editable text (Qt's spin box) still takes the number it means.
    if (element && number?.want !== undefined && !element.flags.includes('editable')) {
      await desktop.setValue(element.id, number.want);
      return {
        did: `Typed ${chars} into ${label}: it takes no text through accessibility, so its value was set (value ${number.was} → ${number.want})`,
        route: 'ax-value',
        delivery: 'background',
        probe,
        undo: restoreValue(field, number.was),
        into: field,
      };
    }
    if (!element || !element.flags.includes('editable')) {
      throw backgroundImpossible(
        'type',
        `${label} is not editable through accessibility`,
        'Name an editable element (ref or query)',
      );
    }
    try {
      if (clearFirst) await desktop.setText(element.id, text);
      // -1: at the end as the toolkit counts it (its offsets count embedded objects, which
      // GTK leaves out of the text it reads back, so the text's own length can fall short).
      else await desktop.insertText(element.id, text, -1);
    } catch (err) {
      throw textUnreachable(err, label);
    }
    const committed = number ? await number.commit('background') : '';
    return {
      did: `Typed ${chars} into ${label}${clearFirst ? ' (replaced)' : ''}${committed}`,
      route: 'ax',
      delivery: 'background',
      probe,
      undo,
      into: field,
    };
  }
  // A list's cell or row takes keys as its list's: letters start the list's search, not
  // an edit (the cell opens an entry of its own only once editing starts).
  if (element && ITEM_ROLES.has(element.role) && !element.flags.includes('editable')) {
    throw new AxError(
      'action_failed',
      `${label} is not being edited: keys typed now would go to its list (its search), so nothing was typed`,
      'Start editing it first (a click on the selected cell, or key Return on it, opens an entry in it), then type into that entry',
    );
  }
  let committed = '';
  let cleared: Cleared = 'read';
  let shownIn: string[] = [];
  let focusNote = '';
  const { restore } = await fronted(scene, async () => {
    // No field named: the text goes to what has the focus once the window is in front.
    if (!element) await guardTextAtFocus(scene, text);
    let holder: ActionTarget = field;
    if (element) {
      // Typing is never sent to whatever happens to have the focus.
      const { focused, unconfirmed } = await takeFocus(
        scene,
        field,
        'nothing was typed',
        'Check that it is visible and enabled (ax_get_attributes), or use delivery_mode "background"',
      );
      holder = { ...field, element: focused.element, label: focused.label };
      if (unconfirmed) focusNote = FOCUS_UNCONFIRMED;
      if (!clearFirst) {
        const multiline = element.flags.includes('multiline');
        await desktop.pressKey({ key: 'End', modifiers: multiline ? ['ctrl'] : [] });
      }
    }
    if (clearFirst)
      cleared = await clearByKeys(scene, element, label, secure, number !== undefined);
    if (scene.passwordGuard) {
      // Safe mode: the app may move the focus by itself mid-text (guarded key by key).
      await typeKeyByKey(
        scene,
        text,
        holder,
        async () => {
          if (!element || current === undefined) return false;
          await desktop.setText(element.id, current);
          return true;
        },
        clearFirst ? '' : current,
      );
    } else if (holder.element?.flags.includes('editable')) {
      // A text field takes a burst of keys whole.
      await desktop.typeText(text);
    } else {
      ({ shownIn } = await typePaced(scene, text));
    }
    if (number) committed = await number.commit('foreground');
  });
  const shown = probe || secure ? undefined : shownElsewhere(scene, shownIn, text);
  return {
    did: `Typed ${chars} into ${label}${focusNote} with key events${clearFirst ? CLEARED[cleared] : ''}${committed}`,
    route: scene.desktop.inputRoute,
    delivery: 'foreground',
    restore,
    probe: probe ?? shown?.probe,
    shows: shown?.shows ?? (probe && element && !secure ? textNow(scene, element.id) : undefined),
    undo,
    into: element ? field : undefined,
  };
}

/** At most this many of the texts an app changed while keys went are read back. */
const SHOWN_READ_MAX = 4;
/** A text read back is quoted in the summary up to about this many characters. */
const SHOWN_QUOTE_CHARS = 60;

/**
 * Where the app shows keys typed to an element that is no text of its own (a calculator's
 * window: its display shows them): the texts that changed while they went. The keys landed
 * when one of them holds the text typed; else the summary says what they show.
 */
function shownElsewhere(
  scene: Scene,
  ids: readonly string[],
  text: string,
): { probe: () => Promise<Reading>; shows: () => Promise<string | undefined> } | undefined {
  if (ids.length === 0) return undefined;
  const { desktop } = scene;
  const read = async (): Promise<string[]> => {
    const texts = await Promise.all(
      ids.slice(0, SHOWN_READ_MAX).map(async (id) => {
        const el = await desktop.readElement(id).catch(() => undefined);
        if (!el || el.flags.includes('secure')) return undefined;
        return (await desktop.readText(id).catch(() => undefined)) ?? el.name;
      }),
    );
    return texts.filter((t): t is string => t !== undefined && t.trim() !== '');
  };
  const typed = text.replace(/\r\n?|\n/g, '\n');
  return {
    probe: async () => ((await read()).some((t) => t.includes(typed)) ? 'landed' : 'absent'),
    shows: async () => {
      const texts = await read();
      return texts.length > 0
        ? `; the app shows ${[...new Set(texts.map(quoted))].join(', ')}, not the text typed`
        : undefined;
    },
  };
}

/** A field's text now, for a summary saying it differs from what was typed. */
function textNow(scene: Scene, id: string): () => Promise<string | undefined> {
  return async () => {
    const now = await scene.desktop.readText(id).catch(() => undefined);
    return now === undefined ? undefined : `; its text reads ${quoted(now)}, not the text expected`;
  };
}

/** A text for a summary: cut at a word's end when long. */
function quoted(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= SHOWN_QUOTE_CHARS) return `'${flat}'`;
  const cut = flat.slice(0, SHOWN_QUOTE_CHARS);
  const space = cut.lastIndexOf(' ');
  return `'${space > SHOWN_QUOTE_CHARS / 2 ? cut.slice(0, space) : cut}…'`;
}

/** How long a field may take to show the clearing keys handled (more under load). */
const CLEAR_READ_MS = 300;
const CLEAR_READ_MAX_MS = 1500;
const CLEAR_POLL_MS = 20;

/** How a foreground clear went: read back empty, or sent and not readable (a password). */
type Cleared = 'read' | 'unread';

const CLEARED: Record<Cleared, string> = {
  read: ' (cleared first)',
  unread: ' (ctrl+a and BackSpace sent first; its text is not read)',
};

/**
 * Empties the focused field with keys: ctrl+a and BackSpace, read back. A window may take
 * ctrl+a for a Select All of its own (GTK 3 runs a window's accelerators before the
 * focused field sees the key), and the typed text would then go in beside the old: the
 * whole text is then selected through accessibility (else Home, shift+End) and deleted,
 * and a field still not empty is an error before anything is typed.
 */
async function clearByKeys(
  scene: Scene,
  element: ActionTarget['element'],
  label: string,
  secure: boolean,
  numeric = false,
): Promise<Cleared> {
  const { desktop } = scene;
  await desktop.pressKey({ key: 'a', modifiers: ['ctrl'] });
  await desktop.pressKey({ key: 'BackSpace', modifiers: [] });
  if (!element || secure) return 'unread';
  const left = async (): Promise<string | undefined> =>
    desktop.readText(element.id).catch(() => undefined);
  // The keys are queued to the app: its text empties once it has handled them.
  // A spin box's prefix and suffix (Qt's " px") stay: its number is what is cleared.
  const empty = (text: string | undefined): boolean =>
    text === '' || (numeric && text !== undefined && !/\d/.test(text));
  const emptied = (): Promise<boolean> =>
    pollFor(
      async () => empty(await left()),
      scaledByLoad(CLEAR_READ_MS, CLEAR_READ_MAX_MS),
      CLEAR_POLL_MS,
    );
  let text = await left();
  if (text === undefined) return 'unread';
  if (empty(text) || (await emptied())) return 'read';
  text = (await left()) ?? '';
  const length = [...text].length;
  const selected =
    (await desktop
      .setTextPlace?.(element.id, { caret: length, selection: [0, length] })
      .catch(() => false)) ?? false;
  if (!selected) {
    const multiline = element.flags.includes('multiline');
    const mods: Array<'ctrl'> = multiline ? ['ctrl'] : [];
    await desktop.pressKey({ key: 'Home', modifiers: mods });
    await desktop.pressKey({ key: 'End', modifiers: [...mods, 'shift'] });
  }
  await desktop.pressKey({ key: 'BackSpace', modifiers: [] });
  if (await emptied()) return 'read';
  text = await left();
  if (text === undefined) return 'unread';
  throw new AxError(
    'action_failed',
    `${label} could not be cleared with keys (ctrl+a and BackSpace, then its text selected and deleted): it still reads '${text}', so nothing was typed`,
    'Type with delivery_mode "background" (it replaces the text through accessibility), or clear the field another way and type without clear_first',
  );
}

/** A list's cells and rows. */
const ITEM_ROLES: ReadonlySet<string> = new Set(['AXCell', 'AXRow']);

/**
 * The field to type into: the one named, else the focused element, else the one editable
 * field showing in the front window. Several such fields are an error listing them.
 */
export function fieldFor(
  scene: Scene,
  named: ActionTarget | undefined,
  background: boolean,
): ActionTarget {
  if (named) return named;
  const els = scene.view.snapshot.elements;
  const focused = els.findIndex((e) => e.flags.includes('focused'));
  if (focused >= 0) return scene.targetAt(focused);
  const editable = els.flatMap((e, i) =>
    scene.view.visible[i] && e.flags.includes('editable') && !e.flags.includes('disabled')
      ? [i]
      : [],
  );
  if (editable.length === 1) {
    const only = scene.targetAt(editable[0]);
    return { ...only, label: `${only.label} (the only editable field)` };
  }
  if (editable.length > 1) {
    const candidates = editable.map((i) => {
      const t = scene.targetAt(i);
      const f = els[i].frame;
      return { ref: t.ref, label: t.label, position: f ? [f.x, f.y] : undefined };
    });
    throw new AxError(
      'bad_argument',
      `no field named and nothing has the focus, and ${editable.length} editable fields are showing: ${candidates
        .map((c) => `${c.label}${c.position ? ` at (${c.position.join(',')})` : ''}`)
        .join('; ')}`,
      'Name one with ref or query; nothing was typed',
      { candidates },
    );
  }
  if (background) {
    throw backgroundImpossible(
      'type',
      'no field named, nothing has the focus and no editable field is showing',
      'Name the field (ref or query)',
    );
  }
  return { label: 'the focused element' };
}
