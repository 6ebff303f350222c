/**
 * `npm run bench`: measured figures, printed as markdown tables, with baselines measured
 * side by side in the same run. Nothing here asserts on time: targets are printed as
 * PASS/MISS for information, and the exit code is 0 unless the bench could not start.
 *
 * One headless desktop with gtk3-widget-factory and gtk3-demo, `axpage serve` driven by
 * the MCP SDK's client over stdio (the harness Session), and the Linux backend opened
 * in this process too, for the parts timed below the MCP layer. Not part of the server:
 * nothing under src/ outside src/bench imports this.
 */
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import type { LaunchedApp } from '../desktop/apps.js';
import { packageRoot, Session } from '../harness/session.js';
import { LinuxDesktop } from '../platform/linux/index.js';
import { useVocabulary } from '../model/vocabulary.js';
import { actionsSection } from './actions.js';
import { chromiumSection } from './chromium.js';
import { fleetSection } from './fleet.js';
import { frozenSection } from './frozen.js';
import { gtk4Section } from './gtk4.js';
import { browserSection } from './browser.js';
import { bigListSection } from './big-list.js';
import { callsSection } from './calls.js';
import { makeCall, type BenchContext } from './context.js';
import { queriesSection } from './queries.js';
import { roundTripSection } from './roundtrip.js';
import { idleSection } from './idle.js';
import { paceSection } from './pace.js';
import { out, section as runSection } from './report.js';
import { screenshotSection } from './screenshot.js';
import { sessionBytesSection } from './session-bytes.js';
import { sessionKindsSection } from './session-kinds.js';
import { snapshotSection } from './snapshot.js';
import { soakSection } from './soak.js';
import { testTimingsSection } from './test-timings.js';
import { summarySizeSection, summaryTotals } from './summary-size.js';
import { workflowSection } from './workflow.js';

function gitRev(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: packageRoot(),
      encoding: 'utf8',
    }).trim();
  } catch {
    return 'unknown';
  }
}

/**
 * The sections to run, by the number before the title's first dot: `--only 4,13` (or
 * `--only 4 --only 13`), or BENCH_ONLY=4,13; all when neither is given.
 */
function onlySections(): string[] | undefined {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { only: { type: 'string', multiple: true } },
  });
  const lists = values.only ?? (process.env.BENCH_ONLY ? [process.env.BENCH_ONLY] : undefined);
  return lists
    ?.flatMap((l) => l.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

async function main(): Promise<number> {
  let only: string[] | undefined;
  try {
    only = onlySections();
  } catch (err) {
    out(`**bad arguments:** ${(err as Error).message} (usage: npm run bench -- --only 4,13)`);
    return 2;
  }
  const t0 = performance.now();
  const cpus = os.cpus();
  out('# axpage bench');
  out();
  out(
    `${new Date().toISOString()} · commit ${gitRev()} · node ${process.version} · ${cpus.length} × ${cpus[0]?.model ?? '?'} · ` +
      `load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  out();

  let session: Session | undefined;
  let backend: LinuxDesktop | undefined;
  let factory: LaunchedApp;
  let demo: LaunchedApp;
  try {
    session = await Session.start();
    factory = await session.launch('gtk3-widget-factory');
    demo = await session.launch('gtk3-demo');
    backend = await LinuxDesktop.open(session.desktop.processEnv());
    // The in-process sections query and clip this backend's trees, as the server does.
    useVocabulary(backend.traits.vocabulary);
  } catch (err) {
    out(`**the bench could not start:** ${(err as Error).message}`);
    if (session) {
      const tail = session.serverLog.join('').slice(-2000);
      if (tail) out(`\nserver log:\n\`\`\`\n${tail}\n\`\`\``);
    }
    await backend?.close().catch(() => undefined);
    await session?.close().catch(() => undefined);
    return 1;
  }
  out(
    `desktop :${session.desktop.display} (${session.desktop.size}); gtk3-widget-factory pid ${factory.pid}, ` +
      `gtk3-demo pid ${demo.pid}; ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  out();

  // Ctrl-C or a kill: still stop the desktop and its apps (they outlive us otherwise).
  const started = { session, backend };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      void (async () => {
        await started.backend.close().catch(() => undefined);
        await started.session.close().catch(() => undefined);
        process.exit(130);
      })();
    });
  }

  const summaryBytes = new Map<string, number[]>();
  const ctx: BenchContext = {
    session,
    backend,
    factory,
    demo,
    summaryBytes,
    call: makeCall(session, summaryBytes),
  };
  const section = (title: string, fn: () => Promise<void>): Promise<boolean> =>
    !only || only.includes(title.split('.')[0]) ? runSection(title, fn) : Promise.resolve(true);
  try {
    await section('1. Snapshot (issue 2)', () => snapshotSection(ctx));
    await section('1b. Snapshot of a Chromium page of 1,000+ elements', () => chromiumSection(ctx));
    await section('1c. A 3,000-row list (issue 13)', () => bigListSection(ctx));
    await section('1d. D-Bus calls per element (issue 13)', () => callsSection(ctx));
    await section('2. Screenshot', () => screenshotSection(ctx));
    await section('3. Summary size', () => summarySizeSection(ctx));
    await section('4. Actions (issue 3)', () => actionsSection(ctx));
    await section('5. Queries (issue 4)', () => queriesSection(ctx));
    await section('6. Summary bytes of scripted tasks (issue 7)', () => sessionBytesSection(ctx));
    await section('8. Workflow of 10 steps vs 10 single calls (issue 11)', () =>
      workflowSection(ctx),
    );
    await section('9. GTK4 app walk beside pyatspi (issue 10)', () => gtk4Section(ctx));
    await section('9b. Browser page walk, Firefox ESR (issue 10)', () => browserSection(ctx));
    await section('10. ax_get_tree round trip after the walk (issue 13)', () =>
      roundTripSection(ctx),
    );
    await section('11. A frozen app beside the one in use', () => frozenSection(ctx));
    await section(
      '12. Timings the tests leave to the bench: a 1 ms walk budget, a paced drag',
      () => testTimingsSection(ctx),
    );
    await section("13. Actions at the app's pace: per toolkit, beside observation and floor", () =>
      paceSection(),
    );
    await section('14. Quiet when idle: 30 s without a call beside a busy app', () =>
      idleSection(ctx),
    );
    await section('16. Walk, capture and click per session kind (X11, sway)', () =>
      sessionKindsSection(),
    );
    await section('3b. Summary size of every call in this run', async () => summaryTotals(ctx));
    await section('7. Soak (issue 8)', () => soakSection(ctx));
  } finally {
    await backend.close().catch(() => undefined);
    await session.close().catch(() => undefined);
  }
  // After the host's desktop is gone: the containers have the machine to themselves.
  await section('15. Fleet: desktop containers per machine', () => fleetSection());
  out(`total bench time ${((performance.now() - t0) / 1000).toFixed(1)} s (after the build)`);
  return 0;
}

// `npm run bench | head` closes our stdout early: keep going (quietly) so cleanup still runs.
process.stdout.on('error', () => undefined);

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    out(`**the bench crashed:** ${(err as Error)?.stack ?? String(err)}`);
    process.exit(1);
  },
);
