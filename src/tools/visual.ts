/**
 * Seeing by pixels where the tree falls short: a pixel diff of two pairs, and a marked
 * screenshot (a numbered box over every visible element) for finding by appearance,
 * asked of the client's model when it offers sampling.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { AxError, describeError } from '../errors.js';
import type { Observed } from '../pipeline/pipeline.js';
import type { WrittenPair, WrittenResult } from '../pipeline/publish.js';
import type { ToolResponse } from '../pipeline/response.js';
import {
  SizeMismatchError,
  artifactDirOf,
  captureOriginOf,
  comparePngs,
  drawMarks,
  elementsOfTreeFile,
  elementsOfView,
  legendLines,
  marksFor,
  parseChoice,
  pngSize,
  regionLine,
  readPairPath,
  resolvePair,
  writeBeside,
  type Mark,
  type PairComparison,
  type PairFiles,
} from '../visual/index.js';
import type { ToolContext } from './context.js';
import { defineTool } from './define.js';
import { optionalAppArg } from './schemas.js';

// Bounds as refinements, not schema keywords: the tools/list entry stays short.
const pairArg = z
  .string()
  .refine((v) => v.trim() !== '' && v.length <= 4096, 'a pair name or path');

export const visualDiff = defineTool({
  name: 'ax_visual_diff',
  title: 'Visual diff',
  description: 'Pixel diff of two pairs: ratio, regions, refs.',
  kind: 'read',
  input: z.object({
    before: pairArg.describe('Earlier pair.'),
    after: pairArg.optional().describe('Later pair (default: now).'),
  }),
  output: z.object({
    ratio: z.number(),
    changed_pixels: z.number(),
    regions: z.array(z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number() })),
    regions_more: z.number(),
    diff_png: z.string(),
  }),
  async handle(args, { pipeline, call }) {
    const dir = artifactDirOf(pipeline.config.outDir);
    const before = await resolvePair(dir, args.before, 'before');
    const beforePng = await readPairPath(before.png, 'before');
    if (args.after !== undefined) {
      const after = await resolvePair(dir, args.after, 'after');
      const [afterPng, afterTree] = await Promise.all([
        readPairPath(after.png, 'after'),
        readPairPath(after.txt, 'after').then((b) => b.toString('utf8')),
      ]);
      const cmp = await compareOrExplain(beforePng, afterPng, afterTree, undefined);
      const diffPath = path.join(path.dirname(after.png), `${after.base}.diff.png`);
      await writeBeside(diffPath, cmp.diffPng);
      return pipeline.report(call, diffResult(before, after.base, cmp, diffPath));
    }
    const pid = pidOf((await readPairPath(before.txt, 'before')).toString('utf8'), before);
    return pipeline.observe(call, {
      app: pid,
      describe: ({ view }) => `Looked at ${view.snapshot.app} again to compare`,
      written: orError(async ({ view }, pair) => {
        if (!pair.screenshot) {
          return {
            error: `no screenshot now to compare (${pair.screenshotError ?? 'none taken'})`,
          };
        }
        const cmp = await compareOrExplain(
          beforePng,
          await readFile(pair.screenshot),
          elementsOfView(view),
          pair.rect,
        );
        const base = path.basename(pair.file, '.txt');
        const diffPath = path.join(path.dirname(pair.file), `${base}.diff.png`);
        await writeBeside(diffPath, cmp.diffPng);
        const result = diffResult(before, base, cmp, diffPath);
        return { ...result, appendix: diffAppendix(before, cmp, diffPath) };
      }),
    });
  },
});

/**
 * Work on a written pair that fails is the call's error, and the pair (tree and
 * screenshot) is still written and named.
 */
function orError(
  work: (seen: Observed, pair: WrittenPair) => Promise<WrittenResult>,
): (seen: Observed, pair: WrittenPair) => Promise<WrittenResult> {
  return (seen, pair) =>
    work(seen, pair).catch((err: unknown) => ({
      error: describeError(err).message,
    }));
}

async function compareOrExplain(
  beforePng: Buffer,
  afterPng: Buffer,
  after: string | ReturnType<typeof elementsOfView>,
  origin: { x: number; y: number } | undefined,
): Promise<PairComparison> {
  try {
    const elements = typeof after === 'string' ? elementsOfTreeFile(after) : after;
    const at =
      origin ??
      (typeof after === 'string'
        ? captureOriginOf(after, await pngSize(afterPng))
        : { x: 0, y: 0 });
    return await comparePngs({ before: beforePng, after: afterPng, elements, origin: at });
  } catch (err) {
    if (err instanceof SizeMismatchError) {
      throw new AxError(
        'bad_argument',
        err.message,
        'Compare two pairs of the same window and size (a dialog or a resize changes the capture); take a new before pair',
      );
    }
    throw err;
  }
}

function diffResult(
  before: PairFiles,
  afterBase: string,
  cmp: PairComparison,
  diffPath: string,
): WrittenResult & { did: string } {
  const pct = (cmp.ratio * 100).toFixed(cmp.ratio > 0 && cmp.ratio < 0.001 ? 4 : 2);
  const count = cmp.regions.length + cmp.more;
  const did =
    cmp.changed === 0
      ? `Compared ${before.base} with ${afterBase}: no pixel changed (diff: ${diffPath})`
      : `Compared ${before.base} with ${afterBase}: ${pct}% of pixels changed (${cmp.changed}) in ${count} region${count === 1 ? '' : 's'} (diff: ${diffPath})`;
  return {
    did,
    answer:
      cmp.regions.length > 0
        ? { key: 'regions', lines: cmp.regions.map(regionLine), omitted: cmp.more }
        : undefined,
    extra: {
      ratio: cmp.ratio,
      changed_pixels: cmp.changed,
      regions: cmp.regions,
      regions_more: cmp.more,
      diff_png: diffPath,
      before: before.base,
      after: afterBase,
    },
  };
}

function diffAppendix(before: PairFiles, cmp: PairComparison, diffPath: string): string[] {
  return [
    `# visual_diff: from ${before.base}  ratio: ${cmp.ratio}  changed: ${cmp.changed}  diff: ${diffPath}`,
    ...cmp.regions.map(regionLine),
    ...(cmp.more > 0 ? [`(+${cmp.more} more regions)`] : []),
  ];
}

/** The app of a pair: the pid in its tree file's header. */
function pidOf(tree: string, pair: PairFiles): number {
  const m = /^# app: .*? {2}pid: (\d+)/m.exec(tree);
  if (!m) {
    throw new AxError(
      'bad_argument',
      `before: ${pair.base} names no app (a listing, not an app's tree)`,
      'Pass after too, or a before pair from a call on an app',
    );
  }
  return Number(m[1]);
}

/** How long the client's model may take to name a number. */
const SAMPLE_TIMEOUT_MS = 60_000;
/** Legend lines sent to the model at most (the file has them all). */
const SAMPLE_LEGEND_LINES = 400;

export const findVisual = defineTool({
  name: 'ax_find_visual',
  title: 'Find visually',
  description: 'Numbered boxes on elements; the client model picks one.',
  kind: 'read',
  input: z.object({
    app: optionalAppArg,
    prompt: z
      .string()
      .refine((v) => v.trim() !== '' && v.length <= 500, 'at most 500 characters, not blank')
      .optional()
      .describe('What to find.'),
  }),
  output: z.object({
    marks_png: z.string(),
    marks: z.number(),
    sampling: z.string(),
    match: z.object({ ref: z.string(), mark: z.number() }).optional(),
  }),
  async handle(args, ctx) {
    const { pipeline, call } = ctx;
    const inline = pipeline.config.screenshots === 'inline';
    const asking = ctx.sample !== undefined && args.prompt !== undefined && !ctx.signal.aborted;
    let marked: { png: Buffer; path: string } | undefined;
    let first: { seen: Observed; out: MarkedPair } | undefined;
    const response = await pipeline.observe(call, {
      app: args.app,
      describe: ({ view }) => `Marked the visible elements of ${view.snapshot.app}`,
      written: orError(async (seen, pair) => {
        const out = await markPair(seen, pair);
        if ('error' in out) return out;
        marked = { png: out.png, path: out.path };
        if (asking) first = { seen, out };
        return unanswered(args.prompt, ctx, seen, out);
      }),
    });
    if (!asking || !first || response.isError) return inlineMarks(response, marked, inline);
    // The model may take up to a minute: asked with the app's lock released, so other
    // calls on the app go on meanwhile; the app is read again after, and the chosen
    // element found again there by its ref.
    const answer = await askModel(args.prompt as string, ctx, first.seen, first.out);
    const chosenRef =
      answer.kind === 'chosen' ? first.out.marks[answer.n - 1].element.ref : undefined;
    let remarked: { png: Buffer; path: string } | undefined;
    const final = await pipeline.observe(call, {
      app: first.seen.view.snapshot.pid,
      // The first read's summary was never shown: list the visible elements again.
      detail: 'full',
      describe: ({ view }) => `Marked the visible elements of ${view.snapshot.app}`,
      written: orError(async (seen, pair) => {
        const out = await markPair(seen, pair);
        if ('error' in out) return out;
        remarked = { png: out.png, path: out.path };
        if (answer.kind !== 'chosen') {
          return unanswered(args.prompt, ctx, seen, out, answer);
        }
        const mark = out.marks.find((m) => m.element.ref === chosenRef);
        if (!mark) {
          return unanswered(args.prompt, ctx, seen, out, {
            kind: 'unanswered',
            sampling: 'stale',
            why: `the model chose ${answer.n} (${chosenRef}), which is no longer visible after its answer`,
          });
        }
        return chosen(seen, out, mark);
      }),
    });
    return inlineMarks(final, remarked, inline);
  },
});

interface MarkedPair {
  png: Buffer;
  path: string;
  marks: Mark[];
  legend: string[];
}

async function markPair(
  { view }: Observed,
  pair: WrittenPair,
): Promise<MarkedPair | { error: string }> {
  if (!pair.screenshot || !pair.rect) {
    return { error: `no screenshot to mark (${pair.screenshotError ?? 'none taken'})` };
  }
  const shot = await readFile(pair.screenshot);
  const { width, height } = await pngSize(shot);
  const marks = marksFor(elementsOfView(view), pair.rect, { width, height });
  const png = await drawMarks(shot, marks);
  const marksPath = pair.file.replace(/\.txt$/, '.marks.png');
  await writeBeside(marksPath, png);
  return { png, path: marksPath, marks, legend: legendLines(marks) };
}

/** What came of asking the model: a mark's number, or why there is none. */
type ModelAnswer =
  { kind: 'chosen'; n: number } | { kind: 'unanswered'; sampling: string; why: string };

function marksAppendix(out: MarkedPair): string[] {
  return [
    `# marks: ${out.path}  (${out.marks.length} boxes; legend: number ref role "text")`,
    ...out.legend,
  ];
}

/**
 * The marks' part of a result without a match: why none (no sampling, no prompt, the
 * model's answer), and how to pick one by looking.
 */
function unanswered(
  prompt: string | undefined,
  ctx: ToolContext,
  { view }: Observed,
  out: MarkedPair,
  answer?: ModelAnswer,
): WrittenResult {
  const n = out.marks.length;
  const lookYourself = `look at ${out.path}, pick a number, act on its ref (legend: the tree file's # marks section)`;
  const why =
    answer?.kind === 'unanswered'
      ? answer
      : !ctx.sample
        ? { sampling: 'unsupported', why: 'the client offers no sampling' }
        : prompt === undefined
          ? { sampling: 'not_asked', why: 'no prompt to ask the model' }
          : { sampling: 'cancelled', why: 'the call was cancelled' };
  return {
    did: `Marked ${n} visible elements of ${view.snapshot.app}; ${why.why}: ${lookYourself}`,
    extra: { marks_png: out.path, marks: n, sampling: why.sampling },
    appendix: marksAppendix(out),
  };
}

/** The marks' part of a result whose element the model chose. */
function chosen({ view }: Observed, out: MarkedPair, mark: Mark): WrittenResult {
  const n = out.marks.length;
  const index = view.refs.indexOf(mark.element.ref);
  return {
    did: `Marked ${n} visible elements of ${view.snapshot.app}; the client's model chose ${mark.n}: ${mark.element.ref}`,
    answer: { key: 'match', indices: index >= 0 ? [index] : [] },
    extra: {
      marks_png: out.path,
      marks: n,
      sampling: 'answered',
      match: {
        mark: mark.n,
        ref: mark.element.ref,
        role: mark.element.role,
        text: mark.element.text,
        ...mark.element.frame,
      },
    },
    appendix: marksAppendix(out),
  };
}

/** Asks the client's model which mark the prompt means (no lock is held meanwhile). */
async function askModel(
  prompt: string,
  ctx: ToolContext,
  { view }: Observed,
  out: MarkedPair,
): Promise<ModelAnswer> {
  const n = out.marks.length;
  const legend = out.legend.slice(0, SAMPLE_LEGEND_LINES);
  const question = [
    `The image is a screenshot of ${view.snapshot.app} with a numbered magenta box over each visible element.`,
    `Legend (number ref role "text"):`,
    ...legend,
    ...(n > legend.length ? [`(+${n - legend.length} more boxes)`] : []),
    '',
    `Which number is: ${prompt}`,
    'Answer with the number only, or 0 if none fits.',
  ].join('\n');
  let text: string;
  try {
    text = await ctx.sample!({
      text: question,
      image: { data: out.png.toString('base64'), mimeType: 'image/png' },
      maxTokens: 16,
      timeoutMs: SAMPLE_TIMEOUT_MS,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const timedOut = /timed? ?out/i.test(message);
    return {
      kind: 'unanswered',
      sampling: timedOut ? 'timeout' : 'failed',
      why: `the client's model gave no answer (${message.slice(0, 120)})`,
    };
  }
  const choice = parseChoice(text, n);
  if (choice.kind === 'none') {
    return { kind: 'unanswered', sampling: 'none', why: "the client's model found no match" };
  }
  if (choice.kind === 'garbage') {
    return {
      kind: 'unanswered',
      sampling: 'garbage',
      why: `the model's answer was unusable (${choice.reason})`,
    };
  }
  return { kind: 'chosen', n: choice.n };
}

/** With inline screenshots, the marked image takes the plain one's place. */
function inlineMarks(
  response: ToolResponse,
  marked: { png: Buffer } | undefined,
  inline: boolean,
): ToolResponse {
  if (!inline || !marked) return response;
  return { ...response, images: [{ data: marked.png.toString('base64'), mimeType: 'image/png' }] };
}

export const visualTools = [visualDiff, findVisual];
