/**
 * The structured twin of the summary text (MCP structuredContent). Tools `.extend()`
 * `summaryShape` with their own fields for their outputSchema. Every field but
 * `status` is absent when it does not apply, as its text line is.
 */
import { z } from 'zod';

export const visibleElementShape = z.object({
  role: z.string(),
  /** Capped (about 60 chars, `…` when cut); secure values masked. */
  text: z.string(),
  ref: z.string(),
  x: z.number(),
  y: z.number(),
  w: z.number(),
  h: z.number(),
  /** Action tools: the element was added or modified by the action. */
  change: z.enum(['added', 'modified']).optional(),
  /** disabled, focused, checked, mixed, pressed, selected, expanded, secure (when set). */
  states: z.array(z.string()).optional(),
  /** A field's value (capped); never for secure fields. */
  value: z.string().optional(),
});

export const stateChangeShape = z.object({
  role: z.string(),
  label: z.string(),
  ref: z.string(),
  /** E.g. {old: "unchecked", new: "checked"}, {old: "disabled", new: "enabled"}. */
  changes: z.array(z.object({ old: z.string(), new: z.string() })),
  /** The element is not visible (before or after the action). */
  hidden: z.boolean().optional(),
  /** The change was read on this hidden element with the same label. */
  twin: z.object({ role: z.string(), ref: z.string() }).optional(),
});

export const textChangeShape = z.object({
  role: z.string(),
  label: z.string(),
  ref: z.string(),
  /** Each side capped around the changed span, `…` marking cuts. */
  old: z.string(),
  new: z.string(),
});

export const summaryShape = z.object({
  status: z.enum(['success', 'error']),
  pid: z.number().int().optional(),
  app: z.string().optional(),
  /** Title of the window acted on or observed (the dialog when one scopes the view). */
  window: z.string().optional(),
  dialog: z.object({ role: z.string(), title: z.string() }).optional(),
  /** Absolute path of the tree file. */
  file: z.string().optional(),
  /** UTF-8 bytes of the tree file. */
  file_size: z.number().int().optional(),
  elements: z.number().int().optional(),
  /** Why the snapshot stopped short; absent when complete. */
  truncated: z.string().optional(),
  screenshot: z.string().optional(),
  screenshot_error: z.string().optional(),
  error: z.string().optional(),
  /** The summary line: what ended (app, windows), what was done, the change counts. */
  summary: z.string().optional(),
  /** The app exited during the action. */
  app_exited: z.boolean().optional(),
  /** Titles of the windows that closed during the action. */
  windows_closed: z.array(z.string()).optional(),
  changes: z
    .object({
      added: z.number().int(),
      removed: z.number().int(),
      modified: z.number().int(),
      moved: z.number().int(),
    })
    .optional(),
  route: z.string().optional(),
  delivery: z.string().optional(),
  effect: z.string().optional(),
  escalation: z.object({ recommended: z.string(), reason: z.string() }).optional(),
  /** Milliseconds the UI took to settle after the action. */
  settle_ms: z.number().int().optional(),
  text_changes: z.array(textChangeShape).optional(),
  text_changes_omitted: z.number().int().optional(),
  state_changes: z.array(stateChangeShape).optional(),
  state_changes_omitted: z.number().int().optional(),
  visible_elements: z.array(visibleElementShape).optional(),
  /** Visible elements left out of visible_elements: shown before in this session, unchanged since the file `since`. */
  visible_unchanged: z.object({ count: z.number().int(), since: z.string() }).optional(),
  /** Read tools: how many visible elements the file lists (the summary lists none). */
  visible_count: z.number().int().optional(),
  /** Candidates left out of visible_elements (they are in the file). */
  visible_elements_omitted: z.number().int().optional(),
  app_switch: z
    .object({
      name: z.string(),
      pid: z.number().int(),
      elements: z.number().int(),
      visible: z.number().int(),
      visible_elements: z.array(visibleElementShape),
      visible_elements_omitted: z.number().int().optional(),
    })
    .optional(),
  /** Paths of structured fields cut or dropped to keep structuredContent under its cap. */
  truncated_fields: z.array(z.string()).optional(),
});

export type SummaryStructured = z.infer<typeof summaryShape>;
export type VisibleElementStructured = z.infer<typeof visibleElementShape>;

/**
 * The common part of every tool's MCP outputSchema: kept small (every tool repeats it in
 * tools/list) and open, so the full structuredContent above (summaryShape, which the
 * unit tests hold results to) validates against it. Numbers are plain numbers: zod's
 * integers would add a ±2^53 range to every one of them.
 */
export const outputShape = z.looseObject({
  status: z.enum(['success', 'error']),
});
