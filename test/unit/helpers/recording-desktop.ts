/**
 * A recording fake Desktop for the delivery functions in src/actions: every call is
 * recorded (name and arguments) in order, and the elements of a synthetic view hold
 * state that the calls change the way an app would (text, numbers, checked). A test
 * reads `calls` to see what was sent, and in which order, or that nothing was.
 */
import type { Element } from '../../../src/model/element.js';
import { PlatformError } from '../../../src/errors.js';
import type { SnapshotView } from '../../../src/model/view.js';
import type { Desktop, KeyCombo, KeyKind } from '../../../src/platform/desktop.js';
import type { ActionTarget, Scene } from '../../../src/actions/index.js';
import { clickRouteOf, commitRouteOf } from '../../../src/platform/linux/click-routes.js';
import { LINUX_TRAITS } from '../../../src/platform/linux/traits.js';
import { buildSnapshot, viewOf, type Spec } from './synthetic.js';

/** What the fake's keys do, as a platform's table says (see Desktop.keyKind). */
const KEY_KINDS: Record<string, KeyKind> = {
  Tab: 'focus',
  ISO_Left_Tab: 'focus',
  '\t': 'focus',
  '\n': 'activate',
  '\r': 'activate',
  Left: 'caret',
  Right: 'caret',
  Up: 'caret',
  Down: 'caret',
  Home: 'caret',
  End: 'caret',
  Page_Up: 'caret',
  Page_Down: 'caret',
  Escape: 'cancel',
  Return: 'activate',
  KP_Enter: 'activate',
  Pointer_Button1: 'pointer',
  Num_Lock: 'pointer',
};

export interface Call {
  name: string;
  args: unknown[];
}

export interface FakeOptions {
  /** Key names the backend knows (default: a few common ones). */
  keys?: string[];
  /** Initial numeric values by element id: value, min, max, step. */
  ranges?: Record<string, { value: number; min: number; max: number; step: number }>;
  /** Make a call throw once it is recorded (e.g. { click: 'X error' }). */
  failing?: Record<string, string>;
  /** Elements that refuse the keyboard focus. */
  unfocusable?: string[];
  /** setText / insertText are accepted but the app does not change the text. */
  ignoresText?: boolean;
  /** Another client holds this device grabbed (grabbedInput answers it; not recorded). */
  grabbed?: 'keyboard' | 'pointer';
  /** Elements whose container does not select them (a list that selects nothing). */
  unselectable?: string[];
  /**
   * The window takes ctrl+a for a Select All of its own: the focused field's text is not
   * selected by it. 'keys-only': its text cannot be selected through accessibility either.
   */
  takesSelectAll?: boolean | 'keys-only';
  /** The focused field keeps its text whatever keys come (BackSpace does nothing). */
  keepsText?: boolean;
}

export interface RecordingDesktop extends Desktop {
  calls: Call[];
  names(): string[];
  text: Map<string, string>;
}

export function recordingDesktop(view: SnapshotView, opts: FakeOptions = {}): RecordingDesktop {
  const calls: Call[] = [];
  const byId = new Map(view.snapshot.elements.map((e) => [e.id, structuredClone(e)]));
  const text = new Map<string, string>();
  for (const e of byId.values()) {
    if (e.value !== undefined && !e.flags.includes('secure')) text.set(e.id, e.value);
  }
  const ranges = new Map(Object.entries(opts.ranges ?? {}));
  const keys = new Set(opts.keys ?? ['Return', 'Tab', 'Escape', 'End', 'a', 'c', 'BackSpace']);
  let focus: string | undefined = [...byId.values()].find((e) => e.flags.includes('focused'))?.id;
  /** The focused field's text is all selected (ctrl+a, or a selection set), so BackSpace empties it. */
  let allSelected = false;
  const record = (name: string, ...args: unknown[]): void => {
    calls.push({ name, args });
    const fail = opts.failing?.[name];
    if (fail) throw new Error(fail);
  };
  const el = (id: string): Element => {
    const found = byId.get(id);
    if (!found) throw new Error(`no element ${id}`);
    return found;
  };
  const desktop = {
    platform: 'recording',
    traits: LINUX_TRAITS,
    calls,
    text,
    names: () => calls.map((c) => c.name),
    // No window system: nothing covers anything (not recorded: no input goes by it).
    listWindows: async () => [],
    screenSize: async () => {
      record('screenSize');
      return { w: 1280, h: 800 };
    },
    // A blank screen: a check item's look reads the same before and after.
    capture: async (rect: { w: number; h: number }) => {
      record('capture', rect);
      return {
        width: rect.w,
        height: rect.h,
        channels: 3,
        data: Buffer.alloc(rect.w * rect.h * 3),
      };
    },
    readElement: async (id: string): Promise<Element> => {
      record('readElement', id);
      const e = structuredClone(el(id));
      if (text.has(id)) e.value = text.get(id);
      const flags = e.flags.filter((f) => f !== 'focused');
      e.flags = focus === id ? [...flags, 'focused'] : flags;
      return e;
    },
    readText: async (id: string) => {
      record('readText', id);
      if (el(id).flags.includes('secure')) throw new Error('secure fields are never read');
      return text.get(id);
    },
    readValue: async (id: string) => {
      record('readValue', id);
      const r = ranges.get(id);
      if (!r) throw new Error(`${id} has no Value interface`);
      return { ...r };
    },
    clickRoute: clickRouteOf,
    commitRoute: commitRouteOf,
    doAction: async (id: string, action: string) => {
      record('doAction', id, action);
      const e = el(id);
      if (['AXCheckBox', 'AXToggleButton', 'AXRadioButton'].includes(e.role)) {
        e.flags = e.flags.includes('checked')
          ? e.flags.filter((f) => f !== 'checked')
          : [...e.flags, 'checked'];
      }
    },
    setText: async (id: string, value: string) => {
      record('setText', id, value.length);
      if (!opts.ignoresText) text.set(id, value);
    },
    insertText: async (id: string, value: string, position: number) => {
      record('insertText', id, value.length, position);
      if (!opts.ignoresText) text.set(id, (text.get(id) ?? '') + value);
    },
    setValue: async (id: string, value: number) => {
      record('setValue', id, value);
      const r = ranges.get(id);
      if (r) r.value = value;
    },
    focusElement: async (id: string) => {
      record('focusElement', id);
      if (!opts.unfocusable?.includes(id)) focus = id;
    },
    selectElement: async (id: string) => {
      record('selectElement', id);
      if (opts.unselectable?.includes(id)) {
        throw new PlatformError('failed', 'its container did not select it');
      }
      // Chosen alone among its siblings, as a click does.
      const parent = view.snapshot.elements.find((e) => e.id === id)?.parent;
      for (const e of view.snapshot.elements) {
        if (e.parent !== parent) continue;
        const sib = el(e.id);
        sib.flags = sib.flags.filter((f) => f !== 'selected');
        if (e.id === id) sib.flags.push('selected');
      }
    },
    hasFocus: async (id: string) => {
      record('hasFocus', id);
      return focus === id;
    },
    grabbedInput: async () => opts.grabbed,
    activate: async (pid: number) => {
      record('activate', pid);
      return async () => {
        record('restore', pid);
      };
    },
    click: async (x: number, y: number, button: string, count: number) => {
      record('click', x, y, button, count);
    },
    pressKey: async (combo: KeyCombo) => {
      record('pressKey', [...combo.modifiers, combo.key].join('+'));
      const chord = [...combo.modifiers, combo.key].join('+');
      if (chord === 'ctrl+a') allSelected = !opts.takesSelectAll;
      else if (chord === 'shift+End' || chord === 'ctrl+shift+End') allSelected = true;
      else if (chord === 'BackSpace' && focus && text.has(focus) && !opts.keepsText) {
        text.set(focus, allSelected ? '' : text.get(focus)!.slice(0, -1));
        allSelected = false;
      } else if (chord !== 'Home' && chord !== 'ctrl+Home') allSelected = false;
    },
    setTextPlace: async (id: string, place: { caret: number; selection?: [number, number] }) => {
      record('setTextPlace', id, place);
      if (opts.takesSelectAll === 'keys-only') return false;
      allSelected = focus === id && place.selection?.[0] === 0 && place.selection[1] > 0;
      return true;
    },
    inputRoute: 'xtest',
    knowsKey: (key: string) => keys.has(key) || [...key].length === 1,
    keyKind: (key: string) => KEY_KINDS[key] ?? 'other',
    typeText: async (value: string) => {
      record('typeText', value.length);
      if (focus && !opts.ignoresText) text.set(focus, (text.get(focus) ?? '') + value);
    },
    scroll: async (...args: number[]) => record('scroll', ...args),
    drag: async (from: unknown, to: unknown, ms: number) => record('drag', from, to, ms),
  };
  return desktop as unknown as RecordingDesktop;
}

/** A window of the form fixture's shape, with ids named after the elements. */
export function formView(overrides: Partial<Record<string, Partial<Spec>>> = {}): SnapshotView {
  const spec = (s: Spec): Spec => ({ ...s, ...(overrides[s.id ?? ''] ?? {}) });
  return viewOf(
    buildSnapshot([
      {
        role: 'AXWindow',
        name: 'Form',
        id: 'win',
        frame: [40, 40, 420, 320],
        flags: ['active'],
        window: { active: true },
        children: [
          spec({
            role: 'AXTextField',
            name: 'Name',
            id: 'name',
            value: 'Ada',
            frame: [100, 60, 200, 30],
            flags: ['enabled', 'editable', 'focusable'],
          }),
          spec({
            role: 'AXTextField',
            name: 'Email',
            id: 'email',
            value: '',
            frame: [100, 100, 200, 30],
            flags: ['enabled', 'editable', 'focusable'],
          }),
          spec({
            role: 'AXTextField',
            name: 'Password',
            id: 'password',
            frame: [100, 140, 200, 30],
            flags: ['enabled', 'editable', 'focusable', 'secure'],
          }),
          spec({
            role: 'AXCheckBox',
            name: 'Subscribe',
            id: 'subscribe',
            frame: [100, 180, 100, 30],
            flags: ['enabled', 'focusable'],
            actions: ['click'],
          }),
          spec({
            role: 'AXIncrementor',
            name: 'Count',
            id: 'count',
            value: '5',
            frame: [100, 220, 100, 30],
            flags: ['enabled', 'editable', 'focusable'],
          }),
          spec({
            role: 'AXButton',
            name: 'Submit',
            id: 'submit',
            frame: [100, 260, 80, 30],
            flags: ['enabled', 'focusable'],
            actions: ['click'],
          }),
        ],
      },
    ]),
  );
}

/** A scene over the fake; `settle` is recorded like a desktop call. */
export function sceneOf(view: SnapshotView, desktop: RecordingDesktop): Scene {
  return {
    desktop,
    pid: view.snapshot.pid,
    view,
    settle: async () => {
      desktop.calls.push({ name: 'settle', args: [] });
    },
    targetAt: (index) => targetIn(view, index),
  };
}

/** The element of a view with this id as an action target, as the pipeline resolves it. */
export function target(view: SnapshotView, id: string): ActionTarget {
  const index = view.snapshot.elements.findIndex((e) => e.id === id);
  if (index < 0) throw new Error(`no element ${id}`);
  return targetIn(view, index);
}

function targetIn(view: SnapshotView, index: number): ActionTarget {
  const element = view.snapshot.elements[index];
  const f = element.frame;
  return {
    index,
    element,
    ref: view.refs[index],
    point: f ? { x: f.x + f.w / 2, y: f.y + f.h / 2 } : undefined,
    label: `[${element.role}] "${element.name}" ${view.refs[index]}`,
  };
}
