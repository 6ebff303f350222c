/**
 * Action tools: each parses its arguments (targets, key combos) and hands a delivery
 * function from src/actions to the pipeline, which takes the before view, settles,
 * diffs, reads the effect back, checks for a handoff and publishes.
 *
 * Delivery ladder: background first (semantic accessibility actions that need no
 * focus), then foreground input events with the app fronted and the previous window
 * restored. `delivery_mode: foreground` goes straight to input events; background never
 * fronts anything: when no semantic action fits, the result says so and recommends
 * foreground (escalation), rather than silently stealing focus.
 */
import { z } from 'zod';
import type { Rect } from '../model/element.js';
import {
  assertKnownKey,
  assertTypeable,
  deliverChain,
  deliverClick,
  deliverDrag,
  deliverKey,
  deliverScroll,
  deliverSetValue,
  deliverType,
  guardClickFollowUps,
  type ActionTarget,
  type KeyAim,
  type Step,
} from '../actions/index.js';
import type { KeyCombo } from '../platform/desktop.js';
import { AxError } from '../errors.js';
import type { ActContext } from '../pipeline/pipeline.js';
import type { Target } from '../pipeline/target.js';
import { defineTool, detailArg } from './define.js';
import { parseKeyCombo } from './keys.js';
import { keyActivation } from '../elicit/moments.js';
import {
  optionalAppArg,
  deliveryArg,
  elementTargetOf,
  queryArg,
  refArg,
  targetOf,
  targetShape,
} from './schemas.js';

const modifiersArg = z
  .array(z.enum(['ctrl', 'shift', 'alt', 'super', 'cmd', 'opt']))
  .describe('Modifier keys held during the key (cmd = super on Linux, opt = alt).');

export const click = defineTool({
  name: 'ax_click',
  title: 'Click an element',
  description:
    'Click by ref, query or point; optionally then type text and press a key. Returns changes.',
  kind: 'action',
  input: z.object({
    detail: detailArg.optional(),
    app: optionalAppArg,
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
  async handle(args, { pipeline, call }) {
    const key = args.key !== undefined ? parseKeyCombo(args.key, args.modifiers ?? []) : undefined;
    const target = targetOf(args, { point: true, required: true });
    const mode = args.delivery_mode;
    const clickType = args.click_type ?? 'single';
    return pipeline.act(call, {
      detail: args.detail,
      app: args.app,
      target,
      sends: args.text,
      // A right click opens a menu: only a click that activates its element is confirmed.
      ...(clickType !== 'right'
        ? { activates: { action: clickType === 'double' ? 'double-click' : 'click' } }
        : {}),
      perform: async (ctx) => {
        checkLaterSteps(ctx, args.text, key);
        const clicked = requireTarget(ctx);
        await guardClickFollowUps(ctx, clicked, args.text, key);
        const steps: Step[] = [
          () =>
            deliverClick(ctx, {
              target: clicked,
              clickType: args.click_type ?? 'single',
              mode,
              rect: rectOf(args),
            }),
        ];
        const text = args.text;
        let typedInto: ActionTarget | undefined;
        if (text !== undefined) {
          // Into the clicked field when it takes text; else, with real input, into what
          // the click gave the focus; in the background by the rules of ax_type.
          const field = clicked.element?.flags.includes('editable')
            ? clicked
            : mode === 'foreground'
              ? { label: 'the focused element' }
              : undefined;
          steps.push(async () => {
            // What the click did (a window it opened, a field it focused) is read after it
            // settled: the text's guards and its target judge the app as it is now.
            if (field !== clicked) await ctx.refresh?.();
            const typed = await deliverType(ctx, { target: field, text, clearFirst: false, mode });
            typedInto = typed.into;
            return typed;
          });
        }
        if (key) steps.push(() => deliverKey(ctx, key, aimAfter(typedInto)));
        return deliverChain(ctx, steps);
      },
    });
  },
});

export const clickAt = defineTool({
  name: 'ax_click_at',
  title: 'Click at screen coordinates',
  description: 'Click at a screen point: background presses the element there, foreground clicks.',
  kind: 'action',
  input: z.object({
    detail: detailArg.optional(),
    app: optionalAppArg,
    x: z.number().describe('Screen x in points, top-left origin (e.g. 120).'),
    y: z.number().describe('Screen y in points (e.g. 340).'),
    click_type: z.enum(['single', 'double', 'right']).optional().describe('Default single.'),
    delivery_mode: deliveryArg.optional(),
  }),
  async handle(args, { pipeline, call }) {
    return pipeline.act(call, {
      detail: args.detail,
      app: args.app,
      target: targetOf({ x: args.x, y: args.y }, { point: true, required: true }),
      perform: (ctx) =>
        deliverClick(ctx, {
          target: requireTarget(ctx),
          clickType: args.click_type ?? 'single',
          mode: args.delivery_mode,
        }),
    });
  },
});

export const type = defineTool({
  name: 'ax_type',
  title: 'Type text',
  description:
    'Type into an element, else the focused or only editable field. Text is never logged.',
  kind: 'action',
  input: z.object({
    detail: detailArg.optional(),
    app: optionalAppArg,
    ref: refArg.optional(),
    query: queryArg.optional(),
    text: z.string().describe('The text to type (never logged or echoed), e.g. "hello world".'),
    clear_first: z
      .boolean()
      .optional()
      .describe('true: the text replaces what the field holds; false (default): appended.'),
    delivery_mode: deliveryArg.optional(),
    key: z
      .string()
      .optional()
      .describe(
        'A key to press after typing, e.g. "Return": sent once the text reads back and the app has gone quiet.',
      ),
    modifiers: modifiersArg.optional().describe('Modifiers for `key`, e.g. ["ctrl"].'),
  }),
  async handle(args, { pipeline, call }) {
    const key = args.key !== undefined ? parseKeyCombo(args.key, args.modifiers ?? []) : undefined;
    const target = targetOf(args);
    return pipeline.act(call, {
      detail: args.detail,
      app: args.app,
      target,
      sends: args.text,
      perform: async (ctx) => {
        checkLaterSteps(ctx, args.text, key);
        let typedInto: ActionTarget | undefined;
        const steps: Step[] = [
          async () => {
            const typed = await deliverType(ctx, {
              target: ctx.target,
              text: args.text,
              clearFirst: args.clear_first ?? false,
              mode: args.delivery_mode,
            });
            typedInto = typed.into;
            return typed;
          },
        ];
        // The key goes to the field typed into, not to whatever had the focus.
        if (key) steps.push(() => deliverKey(ctx, key, aimAfter(typedInto)));
        return deliverChain(ctx, steps);
      },
    });
  },
});

export const setValue = defineTool({
  name: 'ax_set_value',
  title: "Set an element's value",
  description:
    "Set a text field's text, a slider's number or a check box's state (\"true\"), read back.",
  kind: 'idempotent-action',
  input: z.object({
    detail: detailArg.optional(),
    app: optionalAppArg,
    ref: refArg.optional(),
    query: queryArg.optional(),
    value: z
      .union([z.string(), z.number(), z.boolean()])
      .transform(String)
      .describe(
        'The new value: "hello" (text field), 42 or "42" (slider, spin button), true/false (check box).',
      ),
  }),
  async handle(args, { pipeline, call }) {
    return pipeline.act(call, {
      detail: args.detail,
      app: args.app,
      target: elementTargetOf(args),
      sends: args.value,
      perform: (ctx) => deliverSetValue(ctx, requireTarget(ctx), args.value),
    });
  },
});

export const keyPress = defineTool({
  name: 'ax_key_press',
  title: 'Press a key or shortcut',
  description:
    'Press a key or combo in an app (fronted, then restored), into ref/query when given, else into the focus.',
  kind: 'action',
  input: z.object({
    detail: detailArg.optional(),
    app: optionalAppArg,
    ref: refArg.optional().describe('The element the key goes to (it is given the focus first).'),
    query: queryArg.optional(),
    key: z
      .string()
      .min(1)
      .describe('A key ("Return", "Escape", "F5", "a") or combo ("ctrl+s", "ctrl+shift+Tab").'),
    modifiers: modifiersArg
      .optional()
      .describe('Modifiers held, e.g. ["ctrl"] (or write them in key: "ctrl+s").'),
  }),
  async handle(args, { pipeline, call }) {
    const combo = parseKeyCombo(args.key, args.modifiers ?? []);
    const target = targetOf(args);
    const activation = keyActivation(combo);
    return pipeline.act(call, {
      detail: args.detail,
      app: args.app,
      target,
      ...(activation ? { activates: { action: activation, focused: true } } : {}),
      perform: (ctx) => deliverKey(ctx, combo, ctx.target ? { target: ctx.target } : undefined),
    });
  },
});

export const scroll = defineTool({
  name: 'ax_scroll',
  title: 'Scroll',
  description:
    "Scroll an element (default: the window's largest scroll area); down reveals what is below.",
  kind: 'action',
  input: z.object({
    detail: detailArg.optional(),
    app: optionalAppArg,
    ref: refArg.optional(),
    query: queryArg.optional(),
    direction: z.enum(['up', 'down', 'left', 'right']).describe('down reveals what is below.'),
    amount: z.number().int().min(1).max(100_000).optional().describe('Pixels (default 100).'),
    delivery_mode: deliveryArg.optional(),
  }),
  async handle(args, { pipeline, call }) {
    const target = targetOf(args);
    return pipeline.act(call, {
      detail: args.detail,
      app: args.app,
      target,
      perform: (ctx) =>
        deliverScroll(ctx, {
          target: ctx.target,
          direction: args.direction,
          amount: args.amount ?? 100,
          mode: args.delivery_mode,
        }),
    });
  },
});

export const drag = defineTool({
  name: 'ax_drag',
  title: 'Drag',
  description: 'Drag with a real pointer from an element or point (from_*) to another (to_*).',
  kind: 'action',
  input: z.object({
    detail: detailArg.optional(),
    app: optionalAppArg,
    from_ref: refArg.optional(),
    from_query: queryArg.optional(),
    from_x: z.number().optional().describe('Start x in screen points (with from_y).'),
    from_y: z.number().optional().describe('Start y in screen points.'),
    to_ref: refArg.optional(),
    to_query: queryArg.optional(),
    to_x: z.number().optional().describe('End x in screen points (with to_y).'),
    to_y: z.number().optional().describe('End y in screen points.'),
    duration_ms: z
      .number()
      .int()
      .min(0)
      .max(10_000)
      .optional()
      .describe('How long the drag takes, ms (default 300).'),
  }),
  async handle(args, { pipeline, call, signal }) {
    const ends = { point: true, required: true };
    const from = targetOf(
      { ref: args.from_ref, query: args.from_query, x: args.from_x, y: args.from_y },
      { ...ends, what: 'from_ref, from_query, or from_x and from_y' },
    );
    const to = targetOf(
      { ref: args.to_ref, query: args.to_query, x: args.to_x, y: args.to_y },
      { ...ends, what: 'to_ref, to_query, or to_x and to_y' },
    ) as Target;
    return pipeline.act(call, {
      detail: args.detail,
      app: args.app,
      target: from,
      perform: (ctx) =>
        deliverDrag(ctx, {
          from: requireTarget(ctx),
          to: ctx.resolve(to),
          durationMs: args.duration_ms ?? 300,
          signal,
        }),
    });
  },
});

// ---- helpers ----------------------------------------------------------------------

/** A key after text goes to the element the text went into (when the text named one). */
function aimAfter(into: ActionTarget | undefined): KeyAim | undefined {
  return into?.element ? { target: into, afterText: true } : undefined;
}

function requireTarget(ctx: ActContext): ActionTarget {
  if (!ctx.target) {
    throw new AxError('bad_argument', 'no target given', 'Pass ref, query, or x and y');
  }
  return ctx.target;
}

/** x,y,w,h given as a rectangle: checked whole against the screen, not only its centre. */
function rectOf(args: { x?: number; y?: number; w?: number; h?: number }): Rect | undefined {
  const { x, y, w, h } = args;
  return x !== undefined && y !== undefined && w !== undefined && h !== undefined
    ? { x, y, w, h }
    : undefined;
}

/** Text and key checked before the first step runs: no click, then a refused key. */
function checkLaterSteps(
  ctx: ActContext,
  text: string | undefined,
  key: KeyCombo | undefined,
): void {
  if (text !== undefined) assertTypeable(text);
  if (key) assertKnownKey(ctx.desktop, key);
}

export const actTools = [click, clickAt, type, setValue, keyPress, scroll, drag];
