/**
 * Semantic (background) actions and read-backs on one element, addressed by its id
 * (`<bus name><object path>`). These need no focus and no pointer: AT-SPI `DoAction`,
 * `EditableText`, `Component.GrabFocus` and the `Value` interface. Each checks that the
 * element has the interface first, so a wrong target gets a message that says what the
 * element is and what it can do, not a bare D-Bus error.
 *
 * Secure (password) elements: text is never read from them (readText returns undefined,
 * readElement leaves value unset); writing to them is allowed.
 */
import { PRESS_ACTIONS } from '../traits.js';
import dbus from 'dbus-next';

import type { Element } from '../../../model/element.js';
import type { TextPlace } from '../../desktop.js';
import { roleName } from '../roles.js';
import type { AtspiBus, ObjectRef } from './bus.js';
import { AtspiCallError, ROOT_PATH } from './bus.js';
import { gtk4States, isGtk4Bus } from './gtk4.js';
import { actionsByIndex } from './action-strings.js';
import { actionsOneByOne, selectInParent, textEditIgnored } from './gecko.js';
import { parseId } from './ids.js';
import { isQtBridge, qtDoAction, readProps } from './qt.js';
import {
  directCall,
  getProp,
  IFACE,
  isSecure,
  isTopLevelParent,
  mayBeLong,
  readActionNames,
  readBasics,
  readExtras,
  readTextContent,
  toElement,
} from './read.js';
import type { Basics, CallFn } from './read.js';
import { stateNames } from './states.js';

/** AtspiRelationType, index = enum value (libatspi 2.46). */
const RELATIONS = [
  'null',
  'label-for',
  'labelled-by',
  'controller-for',
  'controlled-by',
  'member-of',
  'tooltip-for',
  'node-child-of',
  'node-parent-of',
  'extended',
  'flows-to',
  'flows-from',
  'subwindow-of',
  'embeds',
  'embedded-by',
  'popup-for',
  'parent-window-of',
  'description-for',
  'described-by',
  'details',
  'details-for',
  'error-message',
  'error-for',
];

/** What a caller asks for when it just wants "the" action (a click). */
const GENERIC = new Set(['click', 'press', 'activate', 'default', 'toggle']);

export class AtspiActionError extends AtspiCallError {
  constructor(
    message: string,
    dbusName?: string,
    /** The interface the element lacks, when that is why (e.g. 'EditableText'). */
    readonly missingInterface?: string,
  ) {
    super(message, dbusName);
    this.name = 'AtspiActionError';
  }
}

interface Target {
  ref: ObjectRef;
  basics: Basics;
  role: string;
  describe: string;
}

async function target(bus: AtspiBus, id: string): Promise<Target> {
  const ref = parseId(id);
  let basics: Basics;
  try {
    basics = await readBasics(directCall(bus), ref);
  } catch (err) {
    throw new AtspiActionError(
      `the element cannot be read (it may be gone): ${(err as Error).message}`,
      (err as AtspiCallError).dbusName,
    );
  }
  const role = roleName(basics.role);
  // Role and name only: these messages reach the user, who knows elements by ref, never by
  // their bus path.
  const describe = `[${role}] "${basics.name}"`;
  return { ref, basics, role, describe };
}

function need(t: Target, iface: string, what: string): void {
  if (!t.basics.ifaces.has(iface)) {
    const has = [...t.basics.ifaces].map((i) => i.replace('org.a11y.atspi.', '')).join(', ');
    const missing = iface.replace('org.a11y.atspi.', '');
    throw new AtspiActionError(
      `${t.describe} cannot ${what}: it has no ${missing} interface (it has ${has})`,
      undefined,
      missing,
    );
  }
}

/** Index of the action to run for `wanted` (a name, or an index), or an error naming the choices. */
export function pickAction(names: readonly string[], wanted?: string | number): number {
  if (typeof wanted === 'number') {
    if (Number.isInteger(wanted) && wanted >= 0 && wanted < names.length) return wanted;
    return -1;
  }
  const want = (wanted ?? 'click').trim().toLowerCase();
  const lower = names.map((n) => n.toLowerCase());
  const exact = lower.indexOf(want);
  if (exact >= 0) return exact;
  if (!GENERIC.has(want)) return -1;
  for (const d of PRESS_ACTIONS) {
    const i = lower.indexOf(d);
    if (i >= 0) return i;
  }
  return names.length === 1 ? 0 : -1;
}

/**
 * Runs an action: the one named `nameOrIndex` (case-insensitive), or for a generic request
 * ("click", "press", "activate", "default", "toggle", or none) the element's
 * click/press/activate/toggle action. Returns the name of the action run. GTK3 runs
 * actions from an idle callback: the effect follows the reply, it is not in it.
 */
export async function doAction(
  bus: AtspiBus,
  id: string,
  nameOrIndex?: string | number,
): Promise<string> {
  const t = await target(bus, id);
  need(t, IFACE.Action, 'perform actions');
  const oneByOne = await actionsOneByOne(bus, t.ref[0]);
  const names = await readActionNames(directCall(bus), t.ref, oneByOne);
  const index = pickAction(names, nameOrIndex);
  if (index < 0) {
    const list = names.length ? names.map((n, i) => `${i}:"${n}"`).join(', ') : 'none';
    throw new AtspiActionError(
      `${t.describe} has no action "${nameOrIndex ?? 'click'}"; available: ${list}`,
    );
  }
  // Gecko ignores an option's own "select" (see gecko.ts): choose it through its list.
  if (oneByOne && names[index] === 'select') {
    if (await selectInParent(directCall(bus), t.ref, t.basics.parent)) return names[index];
  }
  const [ok] = (await isQtBridge(directCall(bus), t.ref[0]))
    ? await qtDoAction(bus, t.ref, index)
    : await bus.call(t.ref[0], t.ref[1], IFACE.Action, 'DoAction', 'i', [index]);
  if (ok === false) {
    throw new AtspiActionError(`${t.describe} refused action "${names[index]}"`);
  }
  return names[index];
}

/** A toolkit that acknowledges text edits and ignores them gets none (see gecko.ts). */
async function refuseIgnoredEdit(bus: AtspiBus, t: Target): Promise<void> {
  const why = await textEditIgnored(bus, t.ref[0]);
  // Its EditableText is there but does nothing: to the caller, as good as missing (real
  // key events still reach the field).
  if (why)
    throw new AtspiActionError(
      `${t.describe} cannot take text this way: ${why}`,
      undefined,
      'EditableText',
    );
}

/** Replaces the whole text of an editable element. */
export async function setTextContents(bus: AtspiBus, id: string, text: string): Promise<void> {
  const t = await target(bus, id);
  need(t, IFACE.EditableText, 'take text');
  await refuseIgnoredEdit(bus, t);
  const [ok] = await bus.call(t.ref[0], t.ref[1], IFACE.EditableText, 'SetTextContents', 's', [
    text,
  ]);
  if (ok === false) throw new AtspiActionError(`${t.describe} refused the new text (read-only?)`);
}

/**
 * Inserts `text` at character `position`; a negative position appends at the end.
 * The length argument of InsertText is in bytes (ATK passes it to the toolkit as such).
 */
/** The caret and selection of an element's text; undefined when it has no Text (or no caret). */
export async function textPlace(bus: AtspiBus, id: string): Promise<TextPlace | undefined> {
  const t = await target(bus, id);
  if (!t.basics.ifaces.has(IFACE.Text)) return undefined;
  const call = directCall(bus);
  const [offset, [n]] = await Promise.all([
    getProp(call, t.ref, IFACE.Text, 'CaretOffset'),
    bus.call(t.ref[0], t.ref[1], IFACE.Text, 'GetNSelections'),
  ]);
  if (typeof offset !== 'number' || offset < 0) return undefined;
  if (typeof n !== 'number' || n < 1) return { caret: offset };
  const [start, end] = await bus.call(t.ref[0], t.ref[1], IFACE.Text, 'GetSelection', 'i', [0]);
  return typeof start === 'number' && typeof end === 'number' && end > start
    ? { caret: offset, selection: [start, end] }
    : { caret: offset };
}

/**
 * Puts the caret and selection back as `place` had them: the selection, else no selection
 * and the caret. False when the element refused (or has no Text).
 */
export async function setTextPlace(bus: AtspiBus, id: string, place: TextPlace): Promise<boolean> {
  const t = await target(bus, id);
  if (!t.basics.ifaces.has(IFACE.Text)) return false;
  const text = (m: string, sig?: string, body?: unknown[]) =>
    bus.call(t.ref[0], t.ref[1], IFACE.Text, m, sig, body);
  const [n] = await text('GetNSelections');
  if (place.selection) {
    const [start, end] = place.selection;
    const [ok] =
      typeof n === 'number' && n > 0
        ? await text('SetSelection', 'iii', [0, start, end])
        : await text('AddSelection', 'ii', [start, end]);
    return ok !== false;
  }
  if (typeof n === 'number' && n > 0) await text('RemoveSelection', 'i', [0]);
  const [ok] = await text('SetCaretOffset', 'i', [place.caret]);
  return ok !== false;
}

export async function insertText(
  bus: AtspiBus,
  id: string,
  text: string,
  position: number,
): Promise<void> {
  const t = await target(bus, id);
  need(t, IFACE.EditableText, 'take text');
  await refuseIgnoredEdit(bus, t);
  let pos = position;
  if (pos < 0) {
    pos = t.basics.ifaces.has(IFACE.Text)
      ? ((await getProp(directCall(bus), t.ref, IFACE.Text, 'CharacterCount')) as number)
      : 0;
  }
  const [ok] = await bus.call(t.ref[0], t.ref[1], IFACE.EditableText, 'InsertText', 'isi', [
    pos,
    text,
    Buffer.byteLength(text, 'utf8'),
  ]);
  if (ok === false) throw new AtspiActionError(`${t.describe} refused the inserted text`);
}

/** Moves keyboard focus to the element (Component.GrabFocus). */
export async function grabFocus(bus: AtspiBus, id: string): Promise<void> {
  const t = await target(bus, id);
  need(t, IFACE.Component, 'take focus');
  const [ok] = await bus.call(t.ref[0], t.ref[1], IFACE.Component, 'GrabFocus');
  if (ok === false) throw new AtspiActionError(`${t.describe} did not take the focus`);
}

/**
 * Chooses the element in its parent's selection (Selection.SelectChild at its index), as a
 * click on a row or a tab does, then lets go of anything else the parent still has
 * selected: a click replaces a multiple selection, SelectChild adds to it (GTK4 says no
 * list is multiselectable, so the count is what tells). Throws when the parent offers no
 * selection or refuses (a GTK list box that selects nothing: its rows are only activated);
 * the messages speak of the element as "it", for the caller to name it.
 */
export async function selectInContainer(bus: AtspiBus, id: string): Promise<void> {
  const t = await target(bus, id);
  const parent = t.basics.parent;
  if (!parent || isTopLevelParent(parent) || parent[1] === '/org/a11y/atspi/null') {
    throw new AtspiActionError('it is in no container to be selected in');
  }
  const call = directCall(bus);
  const [ifaces] = await call(parent[0], parent[1], IFACE.Accessible, 'GetInterfaces');
  if (!(ifaces as string[]).includes(IFACE.Selection)) {
    throw new AtspiActionError('its container offers no selection', undefined, 'Selection');
  }
  const [index] = await call(t.ref[0], t.ref[1], IFACE.Accessible, 'GetIndexInParent');
  const select = () => call(parent[0], parent[1], IFACE.Selection, 'SelectChild', 'i', [index]);
  const [ok] = await select();
  if (ok === false) {
    throw new AtspiActionError(
      'its container did not select it (a list that selects nothing: its rows are only activated)',
    );
  }
  if (await selectedElsewhere(call, parent, t.ref)) {
    // Selected items the container cannot name (a GTK4 list view's, scrolled out of it)
    // go only with the whole selection.
    await call(parent[0], parent[1], IFACE.Selection, 'ClearSelection');
    await select();
  }
}

/**
 * Deselects the parent's selected children other than `ref`, one by one; true when some
 * stay selected that could not be named or let go.
 */
async function selectedElsewhere(call: CallFn, parent: ObjectRef, ref: ObjectRef) {
  const count = async () =>
    (await getProp(call, parent, IFACE.Selection, 'NSelectedChildren')) as number;
  let n = await count();
  let i = 0;
  // Each turn lets one go or steps past the element: bounded by the count it started with.
  for (let turns = n; n > 1 && i < n && turns > 0; turns--) {
    let child: ObjectRef;
    try {
      [child] = (await call(parent[0], parent[1], IFACE.Selection, 'GetSelectedChild', 'i', [
        i,
      ])) as [ObjectRef];
    } catch {
      break;
    }
    const [ok] =
      child[0] === ref[0] && child[1] === ref[1]
        ? [false]
        : await call(parent[0], parent[1], IFACE.Selection, 'DeselectSelectedChild', 'i', [i]);
    if (ok === true) n = await count();
    else i++;
  }
  return n > 1;
}

/**
 * The element's current text (capped like a snapshot's); undefined when it has no Text
 * interface, and always undefined for secure (password) elements: their text is never read.
 */
export async function readText(bus: AtspiBus, id: string): Promise<string | undefined> {
  const t = await target(bus, id);
  if (isSecure(t.role) || !t.basics.ifaces.has(IFACE.Text)) return undefined;
  return readTextContent(directCall(bus), t.ref, mayBeLong(t.role, t.basics));
}

export interface ValueInfo {
  value: number;
  min: number;
  max: number;
  step: number;
  /** Qt's scroll bars count lines or items, not pixels (GTK's count pixels). */
  steps?: boolean;
}

/** Current value and bounds of a Value-interface element (slider, spin button, scroll bar). */
export async function readValue(bus: AtspiBus, id: string): Promise<ValueInfo> {
  const t = await target(bus, id);
  need(t, IFACE.Value, 'report a value');
  if (isSecure(t.role))
    throw new AtspiActionError(`${t.describe} is secure: its value is never read`);
  const all = (await readProps(directCall(bus), t.ref, IFACE.Value, [
    'CurrentValue',
    'MinimumValue',
    'MaximumValue',
    'MinimumIncrement',
  ])) as Record<string, { value: number }>;
  return {
    value: all.CurrentValue?.value ?? 0,
    min: all.MinimumValue?.value ?? 0,
    max: all.MaximumValue?.value ?? 0,
    step: all.MinimumIncrement?.value ?? 0,
    ...((await isQtBridge(directCall(bus), t.ref[0])) ? { steps: true } : {}),
  };
}

/** Sets a Value-interface element's value; the toolkit clamps it to its bounds. */
export async function setCurrentValue(bus: AtspiBus, id: string, value: number): Promise<void> {
  if (!Number.isFinite(value))
    throw new AtspiActionError(`value must be a finite number, not ${value}`);
  const t = await target(bus, id);
  need(t, IFACE.Value, 'take a value');
  await bus.call(t.ref[0], t.ref[1], 'org.freedesktop.DBus.Properties', 'Set', 'ssv', [
    IFACE.Value,
    'CurrentValue',
    new dbus.Variant('d', value),
  ]);
}

/**
 * A fresh read of one element, for read-backs after an action: the same fields a snapshot
 * gives it, with parent -1 and depth 0 (it stands alone).
 */
export async function readElement(bus: AtspiBus, id: string): Promise<Element> {
  const t = await target(bus, id);
  const call = directCall(bus);
  const top = isTopLevelParent(t.basics.parent);
  if (isGtk4Bus(t.ref[0])) t.basics.states = gtk4States(t.basics.states, !top);
  const [extras, parentRole] = await Promise.all([
    actionsOneByOne(bus, t.ref[0]).then((oneByOne) =>
      readExtras(call, t.ref, t.role, t.basics, {
        readId: t.basics.accessibleId === undefined,
        actionsOneByOne: oneByOne,
      }),
    ),
    parentRoleOf(bus, t.basics.parent),
  ]);
  return toElement(
    {
      bus: t.ref[0],
      path: t.ref[1],
      basics: t.basics,
      extras,
      topLevel: top,
      parentRole,
    },
    -1,
    0,
  );
}

async function parentRoleOf(bus: AtspiBus, parent: ObjectRef | undefined) {
  if (!parent || parent[1] === ROOT_PATH || parent[1] === '/org/a11y/atspi/null') return undefined;
  try {
    const [role] = await bus.call(parent[0], parent[1], IFACE.Accessible, 'GetRole');
    return roleName(role as number);
  } catch {
    return undefined;
  }
}

/**
 * Everything else AT-SPI knows about an element, for ax_get_attributes: interfaces, raw
 * state names, toolkit attributes, relations, the action list with descriptions and key
 * bindings, and the app's toolkit. Text of secure elements is not included.
 */
export async function elementDetails(bus: AtspiBus, id: string): Promise<Record<string, unknown>> {
  const t = await target(bus, id);
  const [dest, path] = t.ref;
  const opt = <T>(p: Promise<T>): Promise<T | undefined> => p.catch(() => undefined);
  const [attrs, relations, actions, app, localized, index] = await Promise.all([
    opt(
      bus
        .call(dest, path, IFACE.Accessible, 'GetAttributes')
        .then((b) => b[0] as Record<string, string>),
    ),
    opt(
      bus
        .call(dest, path, IFACE.Accessible, 'GetRelationSet')
        .then((b) => b[0] as Array<[number, ObjectRef[]]>),
    ),
    t.basics.ifaces.has(IFACE.Action)
      ? opt(
          actionsOneByOne(bus, dest).then((oneByOne) =>
            oneByOne
              ? actionsByIndex(directCall(bus), t.ref, true)
              : bus.call(dest, path, IFACE.Action, 'GetActions').then((b) =>
                  (b[0] as Array<[string, string, string]>).map(([name, description, keys]) => ({
                    name,
                    description,
                    keys,
                  })),
                ),
          ),
        )
      : Promise.resolve(undefined),
    opt(bus.call(dest, path, IFACE.Accessible, 'GetApplication').then((b) => b[0] as ObjectRef)),
    opt(bus.call(dest, path, IFACE.Accessible, 'GetLocalizedRoleName').then((b) => b[0] as string)),
    opt(bus.call(dest, path, IFACE.Accessible, 'GetIndexInParent').then((b) => b[0] as number)),
  ]);
  let toolkit: string | undefined;
  if (app) {
    const [name, version] = await Promise.all([
      opt(bus.getProperty(app[0], app[1], IFACE.Application, 'ToolkitName')),
      opt(bus.getProperty(app[0], app[1], IFACE.Application, 'Version')),
    ]);
    if (name) toolkit = `${name as string} ${(version as string | undefined) ?? ''}`.trim();
  }
  return {
    id,
    role: t.role,
    localizedRole: localized,
    name: t.basics.name,
    description: t.basics.description,
    accessibleId: t.basics.accessibleId,
    states: stateNames(t.basics.states),
    interfaces: [...t.basics.ifaces].map((i) => i.replace('org.a11y.atspi.', '')),
    childCount: t.basics.childCount,
    indexInParent: index,
    parent: t.basics.parent ? t.basics.parent[0] + t.basics.parent[1] : undefined,
    attributes: attrs,
    relations: relations?.map(([type, targets]) => ({
      type: RELATIONS[type] ?? `relation ${type}`,
      targets: targets.map(([b, p]) => b + p),
    })),
    actions,
    toolkit,
  };
}
