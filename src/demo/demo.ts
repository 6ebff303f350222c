/**
 * `axpage demo`: the main job on an embedded default. Brings up a headless desktop of
 * its own, starts gtk3-widget-factory, drives a short session through a real MCP client
 * over stdio, prints every summary, and leaves the artifacts where it says.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Session, type CallResult } from '../harness/session.js';
import { shellQuote } from '../tree/text.js';
import { newestLog } from '../view/index.js';

interface Step {
  tool: string;
  args: (prev: CallResult[]) => Record<string, unknown>;
  note: string;
}

const APP = 'gtk3-widget-factory';

const STEPS: Step[] = [
  { tool: 'ax_is_accessible', args: () => ({}), note: 'is the accessibility stack reachable?' },
  { tool: 'ax_list_apps', args: () => ({}), note: 'which apps expose accessibility' },
  {
    tool: 'ax_connect',
    args: () => ({ app: APP, alias: 'factory' }),
    note: 'connect by name, with an alias',
  },
  {
    tool: 'ax_get_tree',
    args: () => ({ app: 'factory' }),
    note: 'the whole tree to a file; a summary back',
  },
  { tool: 'ax_list_windows', args: () => ({ app: 'factory' }), note: 'its windows' },
  {
    tool: 'ax_click',
    // The factory shows three enabled check buttons of one name (and disabled ones, which
    // are an error to click): an action on a query several match equally is refused, so
    // nth picks the first.
    args: () => ({ app: 'factory', query: 'role:checkbox title:checkbutton enabled:true nth:1' }),
    note: 'click the first enabled check button, named by a query (background AT-SPI action)',
  },
  {
    tool: 'ax_type',
    args: () => ({
      app: 'factory',
      query: 'role:textfield enabled:true nth:1',
      text: ' typed by axpage',
    }),
    note: 'type into the first enabled text field, named by a query',
  },
  {
    tool: 'ax_find',
    args: () => ({ app: 'factory', query: 'button:"link button"' }),
    note: 'find by role:title (the query language every tool shares)',
  },
  { tool: 'ax_screenshot', args: () => ({ app: 'factory' }), note: 'a screenshot with its tree' },
];

export async function runDemo(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'usage: axpage demo [--out DIR] [--keep]\n  --out DIR  where the artifacts go (default: a new dir under the temp dir)\n  --keep     leave the headless desktop running\n',
    );
    return 0;
  }
  const out = values.out ?? fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-demo-'));
  fs.mkdirSync(out, { recursive: true, mode: 0o700 });
  const log = (line: string): void => void process.stdout.write(`${line}\n`);
  log(`axpage demo: bringing up a headless desktop (Xvfb, D-Bus, AT-SPI, openbox)…`);
  const session = await Session.start({ artifactDir: out, desktop: { log: (l) => log(`  ${l}`) } });
  // Piped into `head` or interrupted: still stop the desktop and apps we started.
  const stop = (): void => {
    void session.close().finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdout.on('error', stop);
  let failed = 0;
  try {
    log(`  desktop :${session.desktop.display} is up; starting ${APP}…`);
    const app = await session.launch(APP);
    log(`  ${APP} pid ${app.pid} registered with AT-SPI in ${app.readyMs} ms\n`);
    const results: CallResult[] = [];
    for (const step of STEPS) {
      const args = step.args(results);
      log(`── ${step.tool} ${JSON.stringify(args)}   # ${step.note}`);
      const result = await session.call(step.tool, args);
      results.push(result);
      log(result.text);
      log(
        `   (${Math.round(result.ms)} ms round trip, ${Buffer.byteLength(result.text)} bytes of summary)\n`,
      );
      if (result.isError) failed++;
    }
    log(`artifacts (tree files and screenshots, same basename): ${out}`);
    log(`try: grep -n 'AXButton' ${out}/*_get_tree.txt | head`);
    log(`see the run in a browser: ${viewCommand(out)}`);
    if (values.keep) {
      await session.detach();
      log(
        `desktop :${session.desktop.display} left running; stop it with: axpage desktop down --display ${session.desktop.display}`,
      );
    }
  } finally {
    if (!values.keep) await session.close();
  }
  return failed > 0 ? 1 : 0;
}

/** `axpage view` on this run's session log (the server wrote it in `out`), else on the dir. */
export function viewCommand(out: string): string {
  let names: string[] = [];
  try {
    names = fs.readdirSync(out);
  } catch {
    // The dir is named as it is: `axpage view` says what is wrong with it.
  }
  const log = newestLog(names);
  return `npx axpage view ${shellQuote(log ? path.join(out, log) : out)}`;
}
