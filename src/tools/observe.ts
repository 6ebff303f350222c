/** Observation tools: the tree, a screenshot, the windows. Same pipeline, no action. */
import { z } from 'zod';
import { defineTool, detailArg } from './define.js';
import { windowLine } from './answers.js';
import { appArg, optionalAppArg, queryArg, rectShape, refArg, targetOf } from './schemas.js';

export const getTree = defineTool({
  name: 'ax_get_tree',
  title: 'Get the element tree',
  description: 'Walk an app (dialogs first) into a greppable tree file plus a screenshot.',
  kind: 'read',
  input: z.object({
    app: optionalAppArg,
    root: refArg.optional().describe('Walk only below this element ref.'),
    root_query: queryArg.optional().describe('Walk only below the best match of this query.'),
    max_depth: z
      .number()
      .int()
      .min(0)
      .max(200)
      .optional()
      .describe('Levels below the root (default 60; 0 = the root only).'),
    include_invisible: z
      .boolean()
      .optional()
      .describe('Keep elements the app reports as not showing (default false).'),
    detail: detailArg,
  }),
  async handle(args, { pipeline, call }) {
    return pipeline.observe(call, {
      app: args.app,
      root: targetOf({ ref: args.root, query: args.root_query }, { what: 'root or root_query' }),
      limits: args.max_depth !== undefined ? { maxDepth: args.max_depth } : undefined,
      dropHidden: !(args.include_invisible ?? false),
      detail: args.detail,
      describe: ({ view }) =>
        `Walked ${view.snapshot.elements.length} elements (${countTrue(view.visible)} visible) in ${Math.round(view.snapshot.elapsedMs)} ms`,
    });
  },
});

export const screenshot = defineTool({
  name: 'ax_screenshot',
  title: 'Capture a screenshot',
  description:
    "Capture an app's window (default: its dialog), a window by index, a region or the screen.",
  kind: 'read',
  input: z.object({
    app: optionalAppArg,
    window_index: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .optional()
      .describe('Window index as ax_list_windows gives it; default: the dialog or active window.'),
    region: rectShape.optional().describe('A screen region in points instead of a window.'),
    full_screen: z.boolean().optional().describe('Capture the whole screen.'),
    include_image: z
      .boolean()
      .optional()
      .describe('Also return the PNG inline (costs context; default false).'),
    detail: detailArg,
  }),
  async handle(args, { pipeline, call }) {
    const desktop = await pipeline.desktop();
    const screen = await desktop.screenSize();
    return pipeline.observe(call, {
      reuse: true,
      app: args.app,
      capture: args.full_screen
        ? { rect: { x: 0, y: 0, w: screen.w, h: screen.h } }
        : { rect: args.region, windowIndex: args.window_index },
      includeImage: args.include_image ?? false,
      detail: args.detail,
      describe: ({ view }) => {
        if (args.window_index !== undefined && !view.snapshot.windows[args.window_index]) {
          return `Captured ${view.snapshot.app}: window_index ${args.window_index} does not exist (it has ${view.snapshot.windows.length}); captured its main view instead`;
        }
        const what = args.full_screen
          ? 'the full screen'
          : args.region
            ? `region ${args.region.x},${args.region.y} ${args.region.w}x${args.region.h}`
            : args.window_index !== undefined
              ? `window ${args.window_index}`
              : view.dialog
                ? `its dialog "${view.dialog.title}"`
                : 'its window';
        return `Captured ${what} of ${view.snapshot.app} (pid ${view.snapshot.pid})`;
      },
    });
  },
});

export const listWindows = defineTool({
  name: 'ax_list_windows',
  title: "List an app's windows",
  description: "List an app's windows and dialogs: index, title, role, frame, active, modal.",
  kind: 'read',
  input: z.object({ app: appArg, detail: detailArg }),
  output: z.object({
    windows: z.array(
      z.object({
        index: z.number(),
        title: z.string(),
        role: z.string(),
        ref: z.string(),
        position: z.array(z.number()).optional(),
        size: z.array(z.number()).optional(),
        focused: z.boolean(),
        modal: z.boolean(),
        dialog: z.boolean(),
        minimized: z.boolean(),
        /** Why it could not be placed (nor told shown or hidden), when it could not. */
        unplaced: z.string().optional(),
      }),
    ),
  }),
  async handle(args, { pipeline, call }) {
    return pipeline.observe(call, {
      reuse: true,
      app: args.app,
      detail: args.detail,
      describe: ({ view }) =>
        `${view.snapshot.app} has ${view.snapshot.windows.length} window${view.snapshot.windows.length === 1 ? '' : 's'}`,
      answer: ({ view }) => ({
        key: 'windows',
        lines: view.snapshot.windows.map((w, i) => windowLine(view, w, i)),
      }),
      results: ({ view }) => ({
        title: 'windows',
        indices: view.snapshot.windows.map((w) => w.index),
      }),
      inspect: async ({ view }) => ({
        windows: view.snapshot.windows.map((w, i) => ({
          index: i,
          title: w.title,
          role: w.role,
          ref: view.refs[w.index],
          position: w.frame ? [w.frame.x, w.frame.y] : undefined,
          size: w.frame ? [w.frame.w, w.frame.h] : undefined,
          focused: w.active,
          modal: w.modal,
          dialog: w.dialog,
          minimized: !w.unplaced && view.snapshot.elements[w.index].flags.includes('offscreen'),
          ...(w.unplaced ? { unplaced: w.unplaced } : {}),
        })),
      }),
    });
  },
});

function countTrue(values: boolean[]): number {
  let n = 0;
  for (const v of values) if (v) n++;
  return n;
}

export const observeTools = [getTree, screenshot, listWindows];
