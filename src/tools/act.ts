/**
 * Action tools. Each declares its schema and what it does to the app; the pipeline
 * takes the before view, settles, diffs, checks for a handoff and publishes.
 *
 * Delivery ladder: background first (semantic accessibility actions that need no
 * focus), then foreground input events with the app fronted and the previous window
 * restored. `delivery_mode: foreground` goes straight to input events; background never
 * fronts anything: when no semantic action fits, the result says so and recommends
 * foreground (escalation), rather than silently stealing focus.
 */
import { z } from 'zod';
import type { Element } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import type { Desktop, KeyCombo, MouseButton } from '../platform/desktop.js';
import { AxError } from '../errors.js';
import type { ActContext, ActOutcome } from '../pipeline/pipeline.js';
import { centerOf, type ResolvedTarget, type Target } from '../pipeline/target.js';
import { defineTool } from './define.js';
import { isCheckable } from './elements.js';
import { parseKeyCombo } from './keys.js';
import {
  appArg,
  deliveryArg,
  elementTargetOf,
  queryArg,
  refArg,
  targetOf,
  targetShape,
} from './schemas.js';

type Delivery = 'background' | 'foreground';
type Step = { ok: boolean; text: string; route: string; delivery: Delivery };

/** Action names that mean "activate this", most specific first. */
const PRESS_ACTIONS = ['click', 'press', 'activate', 'toggle', 'jump', 'open', 'select'];

function pressAction(el: Element): string | undefined {
  const lower = el.actions.map((a) => a.toLowerCase());
  for (const name of PRESS_ACTIONS) {
    const i = lower.indexOf(name);
    if (i >= 0) return el.actions[i];
  }
  return undefined;
}

const modifiersArg = z
  .array(z.enum(['ctrl', 'shift', 'alt', 'super', 'cmd', 'opt']))
  .describe('Modifier keys held during the key (cmd = super on Linux, opt = alt).');

export const click = defineTool({
  name: 'ax_click',
  title: 'Click an element',
  description:
    'Click an element named by ref (e42), query ("button:Save") or coordinates (x,y; with w,h the centre). Single, double or right click. Optionally type text and press a key in the same call (each step is reported; an error in any step is returned, never swallowed). Returns the diff of what changed, the new visible elements, and an app_switch section if another app came to the front.',
  kind: 'action',
  input: z.object({
    app: appArg.optional(),
    ...targetShape,
    click_type: z.enum(['single', 'double', 'right']).optional().describe('Default single.'),
    delivery_mode: deliveryArg.optional(),
    text: z
      .string()
      .optional()
      .describe('Text to type after the click (into what has focus then).'),
    key: z.string().optional().describe('A key to press last, e.g. "Return".'),
    modifiers: modifiersArg.optional().describe('Modifiers for `key`.'),
  }),
  async handle(args, { pipeline }) {
    const key = args.key !== undefined ? parseKeyCombo(args.key, args.modifiers ?? []) : undefined;
    const target = targetOf(args, { point: true, required: true });
    return pipeline.act('ax_click', {
      app: args.app,
      target,
      perform: async (ctx) => {
        const steps: Step[] = [];
        const restore = await clickStep(
          ctx,
          args.click_type ?? 'single',
          args.delivery_mode,
          steps,
        );
        let error: string | undefined;
        try {
          if (args.text !== undefined)
            await typeStep(ctx, undefined, args.text, false, args.delivery_mode, steps);
          if (key) await keyStep(ctx, key, args.key ?? '', steps);
        } catch (err) {
          error = `a later step failed: ${(err as Error).message}`;
        }
        return outcome(steps, restore, error);
      },
    });
  },
});

export const clickAt = defineTool({
  name: 'ax_click_at',
  title: 'Click at screen coordinates',
  description:
    'Click at a screen point (points, top-left origin). In background mode the element under the point is pressed through accessibility; in foreground mode a real pointer click is sent with the app fronted.',
  kind: 'action',
  input: z.object({
    app: appArg.optional().describe('The app the point belongs to; default: the frontmost app.'),
    x: z.number(),
    y: z.number(),
    click_type: z.enum(['single', 'double', 'right']).optional(),
    delivery_mode: deliveryArg.optional(),
  }),
  async handle(args, { pipeline }) {
    return pipeline.act('ax_click_at', {
      app: args.app,
      target: targetOf({ x: args.x, y: args.y }, { point: true, required: true }),
      perform: async (ctx) => {
        const steps: Step[] = [];
        const restore = await clickStep(
          ctx,
          args.click_type ?? 'single',
          args.delivery_mode,
          steps,
        );
        return outcome(steps, restore);
      },
    });
  },
});

export const type = defineTool({
  name: 'ax_type',
  title: 'Type text',
  description:
    "Type text into an element (ref or query) or into the focused element of the app. Background: the text is inserted through accessibility and read back; foreground: real key events. clear_first replaces the current text. Typed text is never logged or echoed: the summary shows the field's old -> new value (masked for password fields).",
  kind: 'action',
  input: z.object({
    app: appArg.optional(),
    ref: refArg.optional(),
    query: queryArg.optional(),
    text: z.string(),
    clear_first: z
      .boolean()
      .optional()
      .describe('Replace the current text (default false: append).'),
    delivery_mode: deliveryArg.optional(),
    key: z.string().optional().describe('A key to press after typing, e.g. "Return".'),
    modifiers: modifiersArg.optional(),
  }),
  async handle(args, { pipeline }) {
    const key = args.key !== undefined ? parseKeyCombo(args.key, args.modifiers ?? []) : undefined;
    const target = targetOf(args);
    return pipeline.act('ax_type', {
      app: args.app,
      target,
      perform: async (ctx) => {
        const steps: Step[] = [];
        const typed = await typeStep(
          ctx,
          ctx.target,
          args.text,
          args.clear_first ?? false,
          args.delivery_mode,
          steps,
        );
        let error: string | undefined;
        if (key) {
          try {
            await keyStep(ctx, key, args.key ?? '', steps);
          } catch (err) {
            error = `typing done, then the key failed: ${(err as Error).message}`;
          }
        }
        // A key after the text (Return, Tab) may rightly change the field: no read-back then.
        return { ...outcome(steps, typed.restore, error), readBack: key ? undefined : typed.check };
      },
    });
  },
});

export const setValue = defineTool({
  name: 'ax_set_value',
  title: "Set an element's value",
  description:
    'Set the value of an element directly: the text of a text field, the number of a slider or spin button, or the state of a check box ("true"/"false"). Read back after setting.',
  kind: 'idempotent-action',
  input: z.object({
    app: appArg.optional(),
    ref: refArg.optional(),
    query: queryArg.optional(),
    value: z.string(),
  }),
  async handle(args, { pipeline }) {
    return pipeline.act('ax_set_value', {
      app: args.app,
      target: elementTargetOf(args),
      perform: async (ctx) => setValueStep(ctx, args.value),
    });
  },
});

export const keyPress = defineTool({
  name: 'ax_key_press',
  title: 'Press a key or shortcut',
  description:
    'Press a key with optional modifiers in an app (it is fronted for the key, then the previous window is restored). Key names: Return, Escape, Tab, BackSpace, Delete, space, Up/Down/Left/Right, Home, End, Page_Up, Page_Down, F1-F12, single characters ("a", "A" = shift+a, "1", "/"), or any X keysym name. Unknown names are an error, never ignored.',
  kind: 'action',
  input: z.object({
    app: appArg.optional().describe('The app to receive the key; default: the frontmost app.'),
    key: z.string().min(1),
    modifiers: modifiersArg.optional(),
  }),
  async handle(args, { pipeline }) {
    const combo = parseKeyCombo(args.key, args.modifiers ?? []);
    return pipeline.act('ax_key_press', {
      app: args.app,
      perform: async (ctx) => {
        const steps: Step[] = [];
        const restore = await keyStep(ctx, combo, args.key, steps);
        return outcome(steps, restore);
      },
    });
  },
});

export const scroll = defineTool({
  name: 'ax_scroll',
  title: 'Scroll',
  description:
    'Scroll a scrollable element (ref or query; default: the largest scroll area of the app\'s window). direction "down" moves the content up to reveal what is below. amount is in pixels (default 100). Background mode moves the scroll bar through accessibility; foreground sends wheel events.',
  kind: 'action',
  input: z.object({
    app: appArg.optional(),
    ref: refArg.optional(),
    query: queryArg.optional(),
    direction: z.enum(['up', 'down', 'left', 'right']),
    amount: z.number().int().positive().max(100_000).optional().describe('Pixels (default 100).'),
    delivery_mode: deliveryArg.optional(),
  }),
  async handle(args, { pipeline }) {
    const target = targetOf(args);
    return pipeline.act('ax_scroll', {
      app: args.app,
      target,
      perform: async (ctx) =>
        scrollStep(ctx, args.direction, args.amount ?? 100, args.delivery_mode),
    });
  },
});

export const drag = defineTool({
  name: 'ax_drag',
  title: 'Drag',
  description:
    'Drag from one element or point to another with a real pointer (the app is fronted, then restored). Give from_ref/from_query or from_x,from_y, and to_ref/to_query or to_x,to_y.',
  kind: 'action',
  input: z.object({
    app: appArg.optional(),
    from_ref: refArg.optional(),
    from_query: queryArg.optional(),
    from_x: z.number().optional(),
    from_y: z.number().optional(),
    to_ref: refArg.optional(),
    to_query: queryArg.optional(),
    to_x: z.number().optional(),
    to_y: z.number().optional(),
    duration_ms: z.number().int().min(0).max(10_000).optional().describe('Default 300.'),
  }),
  async handle(args, { pipeline }) {
    const ends = { point: true, required: true };
    const from = targetOf(
      { ref: args.from_ref, query: args.from_query, x: args.from_x, y: args.from_y },
      { ...ends, what: 'from_ref, from_query, or from_x and from_y' },
    );
    const to = targetOf(
      { ref: args.to_ref, query: args.to_query, x: args.to_x, y: args.to_y },
      { ...ends, what: 'to_ref, to_query, or to_x and to_y' },
    ) as Target;
    return pipeline.act('ax_drag', {
      app: args.app,
      target: from,
      perform: async (ctx) => {
        const start = ctx.target?.point;
        if (!start) throw noPoint(ctx.target);
        const toTarget = ctx.resolve(to);
        const end = toTarget.point;
        if (!end) throw noPoint(toTarget);
        const restore = await ctx.desktop.activate(ctx.pid);
        await ctx.desktop.drag(start, end, args.duration_ms ?? 300);
        return {
          did: `Dragged from ${ctx.target?.label} to (${end.x},${end.y})`,
          route: 'xtest',
          delivery: 'foreground',
          restore,
        };
      },
    });
  },
});

// ---- steps ----------------------------------------------------------------------

async function clickStep(
  ctx: ActContext,
  clickType: 'single' | 'double' | 'right',
  mode: Delivery | undefined,
  steps: Step[],
): Promise<(() => Promise<void>) | undefined> {
  const target = requireTarget(ctx.target);
  const verb =
    clickType === 'single'
      ? 'Clicked'
      : clickType === 'double'
        ? 'Double-clicked'
        : 'Right-clicked';
  let element = target.element;
  if (!element && target.point && mode !== 'foreground') {
    // A point in background mode: press the element under it through accessibility.
    element = elementAt(ctx.view, target.point);
  }
  if (mode !== 'foreground' && clickType === 'single' && element) {
    const action = pressAction(element);
    if (action) {
      await ctx.desktop.doAction(element.id, action);
      steps.push({
        ok: true,
        text: `${verb} ${target.label} (action '${action}')`,
        route: 'ax',
        delivery: 'background',
      });
      return undefined;
    }
  }
  if (mode !== 'foreground') {
    const why = !element
      ? 'no element is under that point'
      : clickType !== 'single'
        ? `a ${clickType} click has no accessibility action`
        : `${target.label} offers no press action (it has: ${element.actions.join(', ') || 'none'})`;
    throw new AxError(
      'action_failed',
      `cannot click in the background: ${why}`,
      'Retry with delivery_mode: "foreground" (real pointer input, the window is fronted then restored)',
      { escalation: { recommended: 'foreground', reason: why } },
    );
  }
  const point = target.point;
  if (!point) throw noPoint(target);
  const restore = await ctx.desktop.activate(ctx.pid);
  const button: MouseButton = clickType === 'right' ? 'right' : 'left';
  await ctx.desktop.click(point.x, point.y, button, clickType === 'double' ? 2 : 1);
  steps.push({
    ok: true,
    text: `${verb} ${target.label} at (${point.x},${point.y})`,
    route: 'xtest',
    delivery: 'foreground',
  });
  return restore;
}

async function typeStep(
  ctx: ActContext,
  target: ResolvedTarget | undefined,
  text: string,
  clearFirst: boolean,
  mode: Delivery | undefined,
  steps: Step[],
): Promise<TypeResult> {
  const { desktop, view } = ctx;
  const index = target?.index ?? focusedIndex(view);
  const element = index !== undefined ? view.snapshot.elements[index] : undefined;
  const label =
    target?.label ??
    (element && index !== undefined
      ? `[${element.role}] "${element.name}" ${view.refs[index]}`
      : 'the focused element');
  const chars = `${[...text].length} chars`;
  if (element?.flags.includes('disabled')) {
    throw new AxError(
      'action_failed',
      `${label} is disabled: it takes no typing`,
      'Enable it first (whatever the app needs), or pick another field',
    );
  }
  const editable = element && element.flags.includes('editable');
  const secure = element?.flags.includes('secure') ?? false;
  const current =
    element && !secure ? await desktop.readText(element.id).catch(() => undefined) : undefined;
  // Read back what the field should hold now; secure fields cannot be read, so no check.
  const expected = clearFirst ? text : current !== undefined ? current + text : undefined;
  const check =
    element && !secure && expected !== undefined
      ? async () => (await desktop.readText(element.id)) === expected
      : undefined;
  if (mode !== 'foreground' && element && editable) {
    if (clearFirst) {
      await desktop.setText(element.id, text);
    } else {
      await desktop.insertText(element.id, text, current !== undefined ? [...current].length : -1);
    }
    steps.push({
      ok: true,
      text: `Typed ${chars} into ${label}${clearFirst ? ' (replaced)' : ''}`,
      route: 'ax',
      delivery: 'background',
    });
    return { check };
  }
  if (mode !== 'foreground') {
    const why = !element
      ? 'no target given and nothing in the app has focus'
      : `${label} is not editable through accessibility`;
    throw new AxError(
      'action_failed',
      `cannot type in the background: ${why}`,
      'Name an editable element (ref or query), or retry with delivery_mode: "foreground" to send real key events',
      { escalation: { recommended: 'foreground', reason: why } },
    );
  }
  const restore = await desktop.activate(ctx.pid);
  if (element && target) {
    await focusForKeys(desktop, element, label);
    if (!clearFirst) {
      const multiline = element.flags.includes('multiline');
      await desktop.pressKey({ key: 'End', modifiers: multiline ? ['ctrl'] : [] });
    }
  }
  if (clearFirst) {
    await desktop.pressKey({ key: 'a', modifiers: ['ctrl'] });
    await desktop.pressKey({ key: 'BackSpace', modifiers: [] });
  }
  await desktop.typeText(text);
  steps.push({
    ok: true,
    text: `Typed ${chars} into ${label} with key events${clearFirst ? ' (cleared first)' : ''}`,
    route: 'xtest',
    delivery: 'foreground',
  });
  return { restore, check };
}

/**
 * Give the field the keyboard focus after its window was fronted (fronting lets the
 * toolkit put back its own focus): an accessibility focus request, then a real click
 * where it is on screen, each checked by reading the focus back. Typing is never sent
 * to whatever happens to have the focus.
 */
async function focusForKeys(desktop: Desktop, element: Element, label: string): Promise<void> {
  const focused = async (): Promise<boolean> => {
    for (let i = 0; i < 10; i++) {
      if (await desktop.hasFocus(element.id).catch(() => false)) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  };
  await desktop.focusElement(element.id).catch(() => undefined);
  if (await focused()) return;
  const point = centerOf(element);
  if (point) {
    await desktop.click(point.x, point.y, 'left', 1);
    if (await focused()) return;
  }
  throw new AxError(
    'action_failed',
    `${label} did not take the keyboard focus, so nothing was typed`,
    'Check that it is visible and enabled (ax_get_attributes), or use delivery_mode "background"',
  );
}

interface TypeResult {
  restore?: () => Promise<void>;
  /** Reads the field back: true when it holds what the typing should have left. */
  check?: () => Promise<boolean>;
}

async function keyStep(
  ctx: ActContext,
  combo: KeyCombo,
  name: string,
  steps: Step[],
): Promise<(() => Promise<void>) | undefined> {
  const restore = await ctx.desktop.activate(ctx.pid);
  await ctx.desktop.pressKey(combo);
  const shown = [...combo.modifiers, name].join('+');
  steps.push({ ok: true, text: `Pressed ${shown}`, route: 'xtest', delivery: 'foreground' });
  return restore;
}

async function setValueStep(ctx: ActContext, value: string): Promise<ActOutcome> {
  const target = requireTarget(ctx.target);
  const element = target.element as Element;
  const { desktop } = ctx;
  if (isCheckable(element)) {
    const want = parseBool(value);
    const has = element.flags.includes('checked');
    if (want !== has) {
      const action = pressAction(element);
      if (!action)
        throw new AxError(
          'action_failed',
          `${target.label} has no toggle action`,
          'Use ax_click with delivery_mode foreground',
        );
      await desktop.doAction(element.id, action);
    }
    return {
      did: `Set ${target.label} to ${want ? 'checked' : 'unchecked'}${want === has ? ' (already was)' : ''}`,
      route: 'ax',
      delivery: 'background',
      verify: (after) => {
        const i = indexOfId(after, element.id);
        const now = i >= 0 && after.snapshot.elements[i].flags.includes('checked');
        return now === want
          ? { effect: 'confirmed' }
          : {
              effect: 'suspected_noop',
              escalation: { recommended: 'foreground', reason: 'the checked state did not change' },
            };
      },
    };
  }
  if (element.flags.includes('editable')) {
    await desktop.setText(element.id, value);
    const secure = element.flags.includes('secure');
    return {
      did: `Set the text of ${target.label} (${[...value].length} chars)`,
      route: 'ax',
      delivery: 'background',
      verify: (after) => {
        if (secure) return { effect: 'unverifiable' };
        const i = indexOfId(after, element.id);
        return i >= 0 && after.snapshot.elements[i].value === value
          ? { effect: 'confirmed' }
          : {
              effect: 'suspected_noop',
              escalation: {
                recommended: 'foreground',
                reason: 'the text did not read back as set',
              },
            };
      },
    };
  }
  const number = Number(value);
  if (value.trim() !== '' && Number.isFinite(number)) {
    const range = await desktop.readValue(element.id).catch(() => undefined);
    if (range) {
      if (number < range.min || number > range.max) {
        throw new AxError(
          'bad_argument',
          `${number} is outside ${target.label}'s range ${range.min}..${range.max}`,
          'Pass a value inside the range',
        );
      }
      await desktop.setValue(element.id, number);
      return {
        did: `Set ${target.label} to ${number} (was ${range.value})`,
        route: 'ax',
        delivery: 'background',
        verify: () => ({ effect: 'unverifiable' }),
        readBack: async () => {
          const now = await desktop.readValue(element.id);
          return Math.abs(now.value - number) < 1e-9;
        },
      };
    }
  }
  throw new AxError(
    'action_failed',
    `${target.label} has no settable value (not editable text, not a number, not a check box)`,
    'For combo boxes click them and pick the item; for other elements use ax_click or ax_type',
  );
}

async function scrollStep(
  ctx: ActContext,
  direction: 'up' | 'down' | 'left' | 'right',
  amount: number,
  mode: Delivery | undefined,
): Promise<ActOutcome> {
  const { desktop, view } = ctx;
  const vertical = direction === 'up' || direction === 'down';
  const sign = direction === 'down' || direction === 'right' ? 1 : -1;
  const area = scrollAreaFor(view, ctx.target?.index);
  const areaLabel =
    area !== undefined ? `[${view.snapshot.elements[area].role}] ${view.refs[area]}` : 'the window';
  if (mode !== 'foreground' && area !== undefined) {
    const bar = scrollBarOf(view, area, vertical);
    if (bar !== undefined) {
      const el = view.snapshot.elements[bar];
      const range = await desktop.readValue(el.id);
      const next = Math.min(range.max, Math.max(range.min, range.value + sign * amount));
      await desktop.setValue(el.id, next);
      return {
        did: `Scrolled ${areaLabel} ${direction} by ${Math.round(Math.abs(next - range.value))} px (scroll bar ${Math.round(range.value)} -> ${Math.round(next)} of ${Math.round(range.max)})`,
        route: 'ax',
        delivery: 'background',
        verify: (_after, diff) =>
          next === range.value
            ? { effect: 'suspected_noop' }
            : diff.modified.length > 0
              ? { effect: 'confirmed' }
              : { effect: 'unverifiable' },
      };
    }
  }
  if (mode !== 'foreground') {
    throw new AxError(
      'action_failed',
      `cannot scroll ${areaLabel} in the background: no scroll bar with a value was found`,
      'Retry with delivery_mode: "foreground" (wheel events over the element)',
      { escalation: { recommended: 'foreground', reason: 'no accessible scroll bar' } },
    );
  }
  const frame = area !== undefined ? view.snapshot.elements[area].frame : view.viewport;
  if (!frame)
    throw new AxError(
      'action_failed',
      'the scroll target has no position on screen',
      'Name another element',
    );
  const x = Math.round(frame.x + frame.w / 2);
  const y = Math.round(frame.y + frame.h / 2);
  // One wheel step scrolls about 50 px in GTK3 lists; the amount is rounded to steps.
  const steps = Math.max(1, Math.round(amount / 50));
  const restore = await desktop.activate(ctx.pid);
  await desktop.scroll(x, y, vertical ? 0 : sign * steps, vertical ? sign * steps : 0);
  return {
    did: `Scrolled ${areaLabel} ${direction} by ${steps} wheel steps at (${x},${y})`,
    route: 'xtest',
    delivery: 'foreground',
    restore,
  };
}

// ---- helpers ----------------------------------------------------------------------

function outcome(
  steps: Step[],
  restore: (() => Promise<void>) | undefined,
  error?: string,
): ActOutcome {
  const last = steps[steps.length - 1];
  const foreground = steps.some((s) => s.delivery === 'foreground');
  return {
    did: steps.map((s) => s.text).join(', then ') || 'Nothing done',
    route: [...new Set(steps.map((s) => s.route))].join('+') || (last?.route ?? 'none'),
    delivery: foreground ? 'foreground' : 'background',
    restore,
    error,
  };
}

function requireTarget(target: ResolvedTarget | undefined): ResolvedTarget {
  if (!target) {
    throw new AxError('bad_argument', 'no target given', 'Pass ref, query, or x and y');
  }
  return target;
}

function noPoint(target: ResolvedTarget | undefined): AxError {
  return new AxError(
    'action_failed',
    `${target?.label ?? 'the target'} has no position on screen (it may be hidden or scrolled away)`,
    'Scroll it into view (ax_scroll) or use a background action',
  );
}

function focusedIndex(view: SnapshotView): number | undefined {
  const i = view.snapshot.elements.findIndex((e) => e.flags.includes('focused'));
  return i >= 0 ? i : undefined;
}

function indexOfId(view: SnapshotView, id: string): number {
  return view.snapshot.elements.findIndex((e) => e.id === id);
}

/** The deepest visible element under a point, preferring ones with a press action. */
function elementAt(view: SnapshotView, p: { x: number; y: number }): Element | undefined {
  let best: Element | undefined;
  let bestArea = Infinity;
  view.snapshot.elements.forEach((el, i) => {
    const f = el.frame;
    if (!f || !view.visible[i] || p.x < f.x || p.y < f.y || p.x >= f.x + f.w || p.y >= f.y + f.h)
      return;
    const area = f.w * f.h - (pressAction(el) ? 1e12 : 0);
    if (area < bestArea) {
      bestArea = area;
      best = el;
    }
  });
  return best;
}

function scrollAreaFor(view: SnapshotView, index: number | undefined): number | undefined {
  const els = view.snapshot.elements;
  for (
    let i = index;
    i !== undefined && i >= 0;
    i = els[i].parent >= 0 ? els[i].parent : undefined
  ) {
    if (els[i].role === 'AXScrollArea') return i;
  }
  if (index !== undefined) {
    // The target itself may contain the scroll area (e.g. a list's container).
    for (let i = index + 1; i < els.length && els[i].depth > els[index].depth; i++) {
      if (els[i].role === 'AXScrollArea') return i;
    }
    return undefined;
  }
  let best: number | undefined;
  let bestArea = 0;
  els.forEach((el, i) => {
    if (el.role !== 'AXScrollArea' || !view.visible[i] || !el.frame) return;
    const area = el.frame.w * el.frame.h;
    if (area > bestArea) {
      bestArea = area;
      best = i;
    }
  });
  return best;
}

function scrollBarOf(view: SnapshotView, area: number, vertical: boolean): number | undefined {
  const els = view.snapshot.elements;
  for (let i = area + 1; i < els.length && els[i].depth > els[area].depth; i++) {
    const el = els[i];
    if (el.role !== 'AXScrollBar' || !el.frame) continue;
    const isVertical = el.frame.h >= el.frame.w;
    if (isVertical === vertical) return i;
  }
  return undefined;
}

function parseBool(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on', 'checked'].includes(v)) return true;
  if (['false', '0', 'no', 'off', 'unchecked'].includes(v)) return false;
  throw new AxError('bad_argument', `'${value}' is not a check box state`, 'Use "true" or "false"');
}

export const actTools = [click, clickAt, type, setValue, keyPress, scroll, drag];
