/**
 * Reading one accessible: the "basics" every element needs (role, name, description,
 * states, interfaces, child count) and the "extras" that depend on its interfaces (frame,
 * text or value, action names, identifier). The walk and the one-element read-back share
 * these, so a snapshot and a read-back never disagree on what an element is.
 *
 * Calls go through a `CallFn` so that the walk can route them through its bounded,
 * prioritized queue while a read-back calls the bus directly.
 */
import type { Element, Rect } from '../../../model/element.js';
import { axRole, roleName, SECURE_ROLES } from '../roles.js';
import type { AtspiBus, ObjectRef } from './bus.js';
import { ATSPI, NULL_PATH, ROOT_PATH } from './bus.js';
import { actionNamesByIndex } from './action-strings.js';
import { embedsOnly, namesMissing } from './chromium.js';
import { visibleText } from './gecko.js';
import { formatId } from './ids.js';
import { isQtBridge, plainText } from './qt.js';
import { flagsFor, hasState, STATE } from './states.js';
import type { StateBits } from './states.js';

/**
 * One method call. `urgent`: a call whose answer decides what else to ask (an element's
 * basics, a container's children); a connection that can sends it ahead of the calls
 * queued in the same tick, since an app answers in the order it receives.
 */
export type CallFn = (
  dest: string,
  path: string,
  iface: string,
  member: string,
  signature?: string,
  body?: unknown[],
  urgent?: boolean,
) => Promise<unknown[]>;

export const IFACE = {
  Accessible: ATSPI + 'Accessible',
  Action: ATSPI + 'Action',
  Application: ATSPI + 'Application',
  Cache: ATSPI + 'Cache',
  Component: ATSPI + 'Component',
  EditableText: ATSPI + 'EditableText',
  Selection: ATSPI + 'Selection',
  Text: ATSPI + 'Text',
  Table: ATSPI + 'Table',
  Value: ATSPI + 'Value',
} as const;

const PROPS = 'org.freedesktop.DBus.Properties';

/** Longest text read from one element; the rest is left on the app's side. */
export const TEXT_CAP = 10_000;

/** GetExtents answers INT_MIN for unmapped and scrolled-away widgets (research gotcha 8). */
const INT_MIN = -2147483648;

/** Coordinate type for GetExtents: 0 = screen (ATSPI_COORD_TYPE_SCREEN). */
const COORD_SCREEN = 0;

export function directCall(bus: AtspiBus): CallFn {
  return (dest, path, iface, member, signature, body) =>
    bus.call(dest, path, iface, member, signature, body);
}

export function getProp(call: CallFn, [dest, path]: ObjectRef, iface: string, prop: string) {
  return call(dest, path, PROPS, 'Get', 'ss', [iface, prop]).then(
    (b) => (b[0] as { value: unknown }).value,
  );
}

export interface Basics {
  role: number;
  name: string;
  description: string;
  states: StateBits;
  ifaces: ReadonlySet<string>;
  /** -1 when the toolkit does not say (cached MANAGES_DESCENDANTS containers). */
  childCount: number;
  /** Read with the basics on a live read (free in GetAll); undefined when not read yet. */
  accessibleId?: string;
  /** The parent's ref, when the read told it (GetAll / the cache). */
  parent?: ObjectRef;
}

/** Connections whose toolkit rejects Properties.GetAll (read the properties one by one). */
const noGetAll = new Set<string>();

/**
 * What an earlier walk learned about the same object (same id) that does not change while it
 * lives: its interfaces (the bridge derives them from the object's type), and its action
 * names as they were under one role and state set (Gecko and Chromium rename "check" to
 * "uncheck" and "expand" to "collapse" as states change; GTK3 cells gain "expand or
 * contract" with EXPANDABLE), so they are reused only while role and states match.
 */
export interface Lasting {
  role: number;
  ifaces: ReadonlySet<string>;
  /** `actionKey(role, states)` when `actions` were read. */
  actionKey?: string;
  actions?: string[];
  /** It had children: a live one gets its child list asked with its basics (fetchAndVisit). */
  parent?: true;
}

export function actionKey(role: number, states: StateBits): string {
  return `${role}:${states.join(',')}`;
}

/**
 * Roles whose objects keep their role for life in every toolkit seen, so a remembered one
 * is not asked again: the cells and rows of big live tables (a call per cell saved). Other
 * roles are always asked: GTK3 turns an entry into a password text when its text is
 * hidden, and the role decides whether a text may be read at all.
 */
const LASTING_ROLES = new Set(['table cell', 'list item', 'tree item', 'table row']);

/** What the caller already knows about an element before reading its basics. */
export interface BasicsHints {
  /** What an earlier walk learned about the same object (see Lasting). */
  known?: Lasting;
  /** Whether the app runs Qt's bridge (no GetAll); asked per call when not given. */
  qt?: boolean;
}

/**
 * Role, name, description, states, interfaces and child count: 4 concurrent calls, 3 when
 * `known` gives the interfaces (asked after all if the role is not the one remembered),
 * 2 when it also gives a lasting role (LASTING_ROLES).
 */
export async function readBasics(
  call: CallFn,
  ref: ObjectRef,
  { known, qt }: BasicsHints = {},
): Promise<Basics> {
  const [dest, path] = ref;
  const lastingRole = known && LASTING_ROLES.has(roleName(known.role)) ? known.role : undefined;
  if (known && lastingRole !== undefined) {
    // A remembered cell or row (most of a big table's walk): two calls, nothing else.
    const [props, [states]] = await Promise.all([
      readAccessibleProps(call, ref, qt),
      call(dest, path, IFACE.Accessible, 'GetState'),
    ]);
    return basicsOf(lastingRole, props, states as number[], known.ifaces);
  }
  const readIfaces = () =>
    call(dest, path, IFACE.Accessible, 'GetInterfaces').then(([i]) => new Set(i as string[]));
  const [[role], props, [states], knownIfaces] = await Promise.all([
    lastingRole !== undefined
      ? Promise.resolve([lastingRole])
      : call(dest, path, IFACE.Accessible, 'GetRole'),
    readAccessibleProps(call, ref, qt),
    call(dest, path, IFACE.Accessible, 'GetState'),
    known ? Promise.resolve(known.ifaces) : readIfaces(),
  ]);
  const ifaces = known && known.role !== role ? await readIfaces() : knownIfaces;
  return basicsOf(role as number, props, states as number[], ifaces);
}

function basicsOf(
  role: number,
  props: AccessibleProps,
  states: number[],
  ifaces: ReadonlySet<string>,
): Basics {
  return {
    role,
    name: props.name,
    description: props.description,
    states,
    ifaces,
    childCount: props.childCount,
    accessibleId: props.accessibleId,
    parent: props.parent,
  };
}

interface AccessibleProps {
  name: string;
  description: string;
  childCount: number;
  accessibleId: string;
  parent?: ObjectRef;
}

async function readAccessibleProps(
  call: CallFn,
  ref: ObjectRef,
  qt: boolean | undefined,
): Promise<AccessibleProps> {
  const [dest, path] = ref;
  // GetAll crashes a Qt app (qt.ts).
  if (!noGetAll.has(dest) && !(qt ?? (await isQtBridge(call, dest)))) {
    try {
      const [all] = (await call(dest, path, PROPS, 'GetAll', 's', [IFACE.Accessible])) as [
        Record<string, { value: unknown }>,
      ];
      return {
        name: (all.Name?.value as string | undefined) ?? '',
        description: (all.Description?.value as string | undefined) ?? '',
        childCount: (all.ChildCount?.value as number | undefined) ?? 0,
        accessibleId: (all.AccessibleId?.value as string | undefined) ?? '',
        parent: all.Parent?.value as ObjectRef | undefined,
      };
    } catch (err) {
      // Only a toolkit that lacks GetAll falls back; a dead object fails either way.
      if (!/UnknownMethod|not supported|Unknown method/i.test(String(err))) throw err;
      noGetAll.add(dest);
    }
  }
  const get = (prop: string) => getProp(call, ref, IFACE.Accessible, prop);
  const [name, description, childCount, accessibleId, parent] = await Promise.all([
    get('Name'),
    get('Description').catch(() => ''),
    get('ChildCount'),
    get('AccessibleId').catch(() => ''),
    get('Parent').catch(() => undefined),
  ]);
  return {
    name: (name as string) ?? '',
    description: (description as string) ?? '',
    childCount: childCount as number,
    accessibleId: (accessibleId as string) ?? '',
    parent: parent as ObjectRef | undefined,
  };
}

export function frameOf(ext: readonly number[] | undefined): Rect | undefined {
  if (!ext || ext.length < 4) return undefined;
  const [x, y, w, h] = ext;
  if (x === INT_MIN || y === INT_MIN || w < 0 || h < 0) return undefined;
  return { x, y, w, h };
}

/** The element's frame in screen coordinates, as GetExtents answers it. */
export function askExtents(call: CallFn, [dest, path]: ObjectRef): Promise<unknown[]> {
  return call(dest, path, IFACE.Component, 'GetExtents', 'u', [COORD_SCREEN]);
}

export function isSecure(nativeRole: string): boolean {
  return SECURE_ROLES.has(nativeRole);
}

/**
 * Rows and cells carry their text as their name in every toolkit seen (GTK3 text cells,
 * Qt items), and an unnamed GTK3 cell is a container of cells: reading their text again
 * would cost a call per cell for nothing (3,000 in a 3,000-row table).
 */
const NAME_IS_TEXT = new Set(['table cell', 'list item', 'tree item', 'table row']);

/**
 * Which elements get their text read: every Text-interface element except secure ones and
 * non-editable rows and cells.
 */
export function wantsText(nativeRole: string, b: Basics): boolean {
  if (!b.ifaces.has(IFACE.Text) || isSecure(nativeRole)) return false;
  if (NAME_IS_TEXT.has(nativeRole) && !b.ifaces.has(IFACE.EditableText)) return false;
  return true;
}

/** Value is read only where no text was: a spin button's text is its formatted value. */
export function wantsValue(nativeRole: string, b: Basics): boolean {
  return b.ifaces.has(IFACE.Value) && !wantsText(nativeRole, b) && !isSecure(nativeRole);
}

/**
 * A combo box whose choice is in no text or value of its own: GTK 3's keeps the name it is
 * given ("Colour") whatever is chosen, and says what is chosen through its Selection (the
 * popup's item of the active row). Its value is that item's name, so that a choice made
 * shows as a change of the combo box itself.
 */
export function showsChoice(nativeRole: string, b: Basics): boolean {
  return (
    nativeRole === 'combo box' &&
    b.ifaces.has(IFACE.Selection) &&
    !b.ifaces.has(IFACE.Text) &&
    !b.ifaces.has(IFACE.Value)
  );
}

/** The name of the first selected child of a Selection container; '' when none is. */
export async function readChoice(call: CallFn, ref: ObjectRef): Promise<string> {
  const [child] = (await call(ref[0], ref[1], IFACE.Selection, 'GetSelectedChild', 'i', [0])) as [
    ObjectRef | undefined,
  ];
  if (!child || !child[1] || child[1] === NULL_PATH) return '';
  return plainText(((await getProp(call, child, IFACE.Accessible, 'Name')) as string) ?? '');
}

const LONG_TEXT_ROLES = new Set([
  'terminal',
  'document text',
  'document web',
  'document frame',
  'paragraph',
]);

/**
 * Elements that can hold a whole file: editable multi-line text (GtkTextView) and
 * documents. Labels are MULTI_LINE in GTK3 too, but short: they are read in one call.
 */
export function mayBeLong(nativeRole: string, b: Basics): boolean {
  return (
    LONG_TEXT_ROLES.has(nativeRole) ||
    (hasState(b.states, STATE.MULTI_LINE) && b.ifaces.has(IFACE.EditableText))
  );
}

/**
 * How a toolkit's GetText may be asked (see readTextContent). `clamps`: a span past the end
 * of an editable text answers up to its end, and an open end (-1) answers the whole text,
 * empty or not: GTK 3 (its text views and entries use the buffer's clamped iterators).
 */
export interface TextReading {
  clamps?: boolean;
}

/**
 * The element's text, capped at TEXT_CAP characters. Long-text elements get their length
 * asked first so that only the capped span crosses the bus; others are read whole (asking
 * for a span past the end is unsafe: GTK3's label reads past its string). Never called for
 * secure elements. A toolkit that clamps (TextReading) is asked the capped span of an
 * editable long text at once, and an empty answer is final: one round trip, not two.
 */
export async function readTextContent(
  call: CallFn,
  ref: ObjectRef,
  multiLine: boolean,
  { clamps = false }: TextReading = {},
  editable = false,
): Promise<string> {
  const [dest, path] = ref;
  let end = -1;
  let count: number | undefined;
  if (multiLine && clamps && editable) {
    end = TEXT_CAP;
  } else if (multiLine) {
    count = (await getProp(call, ref, IFACE.Text, 'CharacterCount')) as number;
    if (count > TEXT_CAP) end = TEXT_CAP;
  }
  const [text] = await call(dest, path, IFACE.Text, 'GetText', 'ii', [0, end]);
  let s = (text as string) ?? '';
  if (!s && end === -1 && !clamps) {
    // GTK4 answers "" to an open end (-1): ask again with the real length when there is one.
    count ??= (await getProp(call, ref, IFACE.Text, 'CharacterCount')) as number;
    if (count > 0) {
      const [again] = await call(dest, path, IFACE.Text, 'GetText', 'ii', [
        0,
        Math.min(count, TEXT_CAP),
      ]);
      s = (again as string) ?? '';
    }
  }
  s = visibleText(s);
  // Characters, not UTF-16 units: a capped string must not end in half a surrogate pair.
  if (s.length <= TEXT_CAP) return s;
  return Array.from(s).slice(0, TEXT_CAP).join('');
}

export function formatNumber(v: number): string {
  if (Number.isInteger(v)) return String(v);
  // Doubles from the toolkit carry binary noise (0.30000000000000004).
  return String(Number(v.toPrecision(12)));
}

/** `oneByOne`: the app's toolkit must not be sent GetActions (see gecko.ts). */
export async function readActionNames(
  call: CallFn,
  [dest, path]: ObjectRef,
  oneByOne = false,
): Promise<string[]> {
  if (oneByOne) return actionNamesByIndex(call, [dest, path]);
  const [actions] = await call(dest, path, IFACE.Action, 'GetActions');
  const names = (actions as Array<[string, string, string]>).map((a) => a[0]);
  return namesMissing(names) ? actionNamesByIndex(call, [dest, path], names.length) : names;
}

/**
 * Pure layout containers: toolkits do not give them developer ids (GTK3 boxes, grids and
 * scrolled windows), so the cache walk does not spend a call per container asking.
 */
const LAYOUT_ROLES = new Set([
  'filler',
  'panel',
  'viewport',
  'scroll pane',
  'separator',
  'layered pane',
  'root pane',
  'glass pane',
  'section',
  'scroll bar',
]);

export interface Extras {
  frame?: Rect;
  /** The toolkit answered GetExtents with no position (INT_MIN): not really on screen. */
  unplaced?: boolean;
  value?: string;
  actions: string[];
  /** The action names were read (not remembered, not failed): worth remembering. */
  actionsRead?: boolean;
  accessibleId?: string;
}

/** How `readExtras` reads one element beyond its interfaces. */
export interface ExtrasOptions {
  /** Also read AccessibleId (the cache does not carry it). */
  readId: boolean;
  /** The action names remembered for this object in this role and state set (see Lasting). */
  knownActions?: string[];
  /** The app's toolkit must not be sent GetActions (see gecko.ts). */
  actionsOneByOne?: boolean;
  /**
   * A GetExtents reply asked for before the states were known (a warm walk asks it with the
   * basics, saving a round trip); used only if the element turns out SHOWING, as an asked
   * one would be.
   */
  extents?: Promise<unknown[]>;
  /** The frame is known to be unplaced (INT_MIN) without asking (see shown-rows.ts). */
  unplaced?: boolean;
  /** The toolkit's GetText clamps (see TextReading). */
  textClamps?: boolean;
}

/**
 * The interface-dependent reads, all concurrent; each one that fails (an object that went
 * away mid-walk, a toolkit that half-implements an interface) just stays empty.
 */
export async function readExtras(
  call: CallFn,
  ref: ObjectRef,
  nativeRole: string,
  b: Basics,
  { readId, knownActions, actionsOneByOne = false, extents, unplaced, textClamps }: ExtrasOptions,
): Promise<Extras> {
  const out: Extras = { actions: [] };
  const jobs: Array<Promise<unknown>> = [];
  // A widget that is not SHOWING (scrolled out, unmapped, on a hidden page) has no useful
  // frame: GTK answers INT_MIN. Skipping the call saves thousands in a long table.
  const showing = b.ifaces.has(IFACE.Component) && hasState(b.states, STATE.SHOWING);
  if (showing && unplaced) {
    out.unplaced = true; // what GetExtents would have answered
  } else if (showing) {
    jobs.push(
      (extents ?? askExtents(call, ref)).then(([ext]) => {
        out.frame = frameOf(ext as number[]);
        // SHOWING yet no position: GTK3 says so for cells of a hidden tree-view column.
        if (!out.frame) out.unplaced = true;
      }),
    );
  } else {
    extents?.catch(() => undefined); // not needed after all: its failure is no one's concern
  }
  if (wantsText(nativeRole, b)) {
    jobs.push(
      readTextContent(
        call,
        ref,
        mayBeLong(nativeRole, b),
        { clamps: textClamps },
        b.ifaces.has(IFACE.EditableText),
      ).then((t) => {
        if (!embedsOnly(t) || b.ifaces.has(IFACE.EditableText)) out.value = t;
      }),
    );
  } else if (wantsValue(nativeRole, b)) {
    jobs.push(
      getProp(call, ref, IFACE.Value, 'CurrentValue').then(
        (v) => (out.value = formatNumber(v as number)),
      ),
    );
  } else if (showsChoice(nativeRole, b)) {
    jobs.push(
      readChoice(call, ref).then((name) => {
        if (name) out.value = name;
      }),
    );
  }
  if (b.ifaces.has(IFACE.Action)) {
    // Shared, not copied: nothing changes an element's action list after the walk.
    if (knownActions) out.actions = knownActions;
    else {
      jobs.push(
        readActionNames(call, ref, actionsOneByOne).then((names) => {
          out.actions = names;
          // Gecko answers no actions for an element still being set up: not worth keeping.
          out.actionsRead = names.length > 0 || !actionsOneByOne;
        }),
      );
    }
  }
  if (readId && !LAYOUT_ROLES.has(nativeRole)) {
    jobs.push(
      getProp(call, ref, IFACE.Accessible, 'AccessibleId').then(
        (id) => (out.accessibleId = id as string),
      ),
    );
  }
  if (jobs.length === 0) return out; // a remembered cell out of view: nothing to ask
  await Promise.all(jobs.map((j) => j.catch(() => undefined)));
  return out;
}

/** Everything `toElement` needs about one accessible. */
export interface ElementParts {
  bus: string;
  path: string;
  basics: Basics;
  extras: Extras;
  /** The parent is the application root. */
  topLevel: boolean;
  parentRole?: string;
}

export function toElement(p: ElementParts, parent: number, depth: number): Element {
  const { basics: b, extras: x } = p;
  const native = roleName(b.role);
  const el: Element = {
    id: formatId(p.bus, p.path),
    parent,
    depth,
    role: axRole(native, {
      topLevel: p.topLevel,
      modal: hasState(b.states, STATE.MODAL),
      multiLine: hasState(b.states, STATE.MULTI_LINE),
      expandable: hasState(b.states, STATE.EXPANDABLE),
      parentRole: p.parentRole,
    }),
    nativeRole: native,
    name: plainText(b.name),
    flags: flagsFor(native, b.states),
    actions: x.actions,
    childCount: Math.max(b.childCount, 0),
  };
  if (x.unplaced && !el.flags.includes('offscreen')) el.flags.push('offscreen');
  if (x.value !== undefined && !isSecure(native)) el.value = x.value;
  if (b.description) el.description = plainText(b.description);
  if (x.frame) el.frame = x.frame;
  const id = x.accessibleId ?? b.accessibleId;
  if (id) el.identifier = id;
  return el;
}

/** Is `ref` a direct child of its application's root? */
export function isTopLevelParent(parent: ObjectRef | undefined): boolean {
  return parent !== undefined && parent[1] === ROOT_PATH;
}
