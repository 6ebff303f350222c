/**
 * Section 8 (issue 11): the same 10 steps on gtk3-widget-factory as one ax_workflow call
 * and as 10 single calls, side by side: bytes returned to the agent (summary text, and
 * text plus structuredContent) and wall time as the client sees it.
 */
import fs from 'node:fs';
import type { CallResult } from '../harness/session.js';
import type { BenchContext } from './context.js';
import { refOf, treeSection } from './context.js';
import { fmt, out, table } from './report.js';
import { stats } from './stats.js';

const RUNS = 5;
const STEPS = 10;

interface Measured {
  ms: number;
  text: number;
  total: number;
}

function bytesOf(r: CallResult): { text: number; total: number } {
  const text = Buffer.byteLength(r.text);
  return { text, total: text + Buffer.byteLength(JSON.stringify(r.structured)) };
}

/** A visible, enabled element's ref by its tree line. */
function refIn(file: string, pattern: RegExp, word: string): string {
  const lines = treeSection(fs.readFileSync(file, 'utf8'));
  const line = lines.find((l) => pattern.test(l));
  const ref = line ? refOf(line) : undefined;
  if (!ref) {
    const near = lines.filter((l) => l.includes(word)).slice(0, 5);
    throw new Error(
      `no line matching ${pattern} in ${file}; lines with ${word}:\n${near.join('\n')}`,
    );
  }
  return ref;
}

export async function workflowSection(ctx: BenchContext): Promise<void> {
  const tree = await ctx.call('ax_get_tree', { app: ctx.factory.pid });
  const entry = refIn(
    tree.fields.file,
    // Any enabled text field: once section 4 has typed into "entry", GTK names it by its
    // text, and only the disabled one is still called "entry".
    /\[AXTextField \(text\)\] (?:"[^"]*" )?e[0-9]+ .* visible enabled\b.*\beditable\b/,
    'AXTextField',
  );
  const box = refIn(
    tree.fields.file,
    /\[AXCheckBox \(check box\)\] "checkbutton" e[0-9]+ .*\bvisible enabled\b(?!.*\bmixed\b)/,
    '"checkbutton"',
  );
  // Alternating: set the entry's text, toggle the box (5 of each).
  const steps = (run: number) =>
    Array.from({ length: STEPS }, (_, i) =>
      i % 2 === 0
        ? { tool: 'ax_set_value', args: { ref: entry, value: `bench ${run}.${i}` } }
        : { tool: 'ax_click', args: { ref: box } },
    );
  const singles: Measured[] = [];
  const workflows: Measured[] = [];
  for (let run = 0; run < RUNS + 1; run++) {
    // Run 0 warms both up; the order alternates so neither always goes first.
    const order = run % 2 === 0 ? ['single', 'workflow'] : ['workflow', 'single'];
    for (const way of order) {
      if (way === 'single') {
        const m: Measured = { ms: 0, text: 0, total: 0 };
        for (const step of steps(run)) {
          const r = await ctx.call(step.tool, step.args);
          const b = bytesOf(r);
          m.ms += r.ms;
          m.text += b.text;
          m.total += b.total;
        }
        if (run > 0) singles.push(m);
      } else {
        const r = await ctx.call('ax_workflow', { steps: steps(run) });
        if (r.structured.steps_passed !== STEPS) {
          throw new Error(`the workflow did not pass all ${STEPS} steps:\n${r.text}`);
        }
        if (run > 0) workflows.push({ ms: r.ms, ...bytesOf(r) });
      }
    }
  }
  out(
    `### ${STEPS} steps (ax_set_value on text field ${entry} and ax_click on ${box} "checkbutton", alternating) on gtk3-widget-factory`,
  );
  out();
  out(
    `${RUNS} runs each after a warm-up, alternating which goes first. Bytes: what the agent's context receives ` +
      '(summary text; and text + structuredContent). Both write one tree file + PNG per step; the workflow writes its index file too.',
  );
  out();
  const row = (label: string, ms: Measured[]) => {
    const t = stats(ms.map((m) => m.ms));
    return [
      label,
      fmt(t.median),
      fmt(t.min),
      fmt(stats(ms.map((m) => m.text)).median, 0),
      fmt(stats(ms.map((m) => m.total)).median, 0),
    ];
  };
  table(
    ['way', 'wall median ms', 'wall min ms', 'summary bytes', 'text + structured bytes'],
    [row(`${STEPS} single calls`, singles), row('1 ax_workflow', workflows)],
  );
  out();
}
