/**
 * Launching an app and handing the agent over to it: resolve what would run (the real
 * files of the program, its interpreter and what a launcher runs), check all of it
 * against the policy, start it detached (its output to a private log), wait until it is
 * on the accessibility bus with a window, check its registered name too, and answer with
 * its first observation through the one pipeline.
 */
import { constants, openSync } from 'node:fs';
import { readdir, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDir, resolveArtifactDir } from '../capture/index.js';
import { AxError, PlatformError } from '../errors.js';
import type { AppInfo, Desktop, LaunchPlan, LaunchRequest } from '../platform/desktop.js';
import type { ToolCall } from './notify.js';
import type { Pipeline } from './pipeline.js';
import type { ToolResponse } from './response.js';
import { LaunchLog } from './launch-log.js';
import { launchQuestion } from '../elicit/questions.js';

/** The tool call that launches (its name and notifier), with what to launch. */
export interface LaunchCall extends ToolCall {
  request: LaunchRequest;
  /** Longest wait for the app to register and show a window. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** How long an error waits for what the app printed to be in its log. */
const LOG_SETTLE_MS = 2000;
/** Launch logs the artifact dir keeps (the oldest go first). */
const KEEP_LOGS = 20;
const POLL_MS = 50;
/** A single-instance app handed off to: how long its running instance may take to front. */
const HANDOFF_FRONT_MS = 2000;

/**
 * How long a registered app's accessible windows must wait for the window system to name
 * one of its windows before they count (a GTK app registers a moment before it maps).
 */
const UNNAMED_WINDOW_GRACE_MS = 1500;

/** How the wait for a launched app ended. */
type Arrival =
  | { kind: 'ready'; app: AppInfo }
  | { kind: 'denied' }
  | { kind: 'handed-off'; app: AppInfo; code: number | null }
  | { kind: 'exited'; code: number | null; signal: string | null }
  | { kind: 'timeout'; registered?: AppInfo }
  | { kind: 'cancelled' };

export async function launchApp(pipeline: Pipeline, call: LaunchCall): Promise<ToolResponse> {
  const desktop = await pipeline.desktop();
  const plan = await planOrExplain(desktop, call.request);
  const facts = {
    kind: 'command' in call.request ? ('command' as const) : ('desktop' as const),
    names: plan.names,
    executable: plan.executable,
    executables: plan.executables,
    programs: plan.programs,
    wrapper: plan.wrapper,
    unlisted: plan.unlisted,
  };
  // A command safe mode refuses only for being off the launch allow list: the person may
  // allow it this once (everything else the policy checks still applies, first).
  if (call.asking?.canAsk && pipeline.policy.offLaunchAllowList(facts)) {
    pipeline.policy.checkLaunch(facts, { unlistedAllowed: true });
    const argCount = 'command' in call.request ? call.request.command.length - 1 : 0;
    await call.asking.ask(launchQuestion(plan.executable, argCount));
  } else {
    pipeline.policy.checkLaunch(facts);
  }
  const appsBefore = await desktop.listApps();
  const log = await openLog(pipeline, plan);
  let launched;
  try {
    launched = await desktop.launch(plan);
  } catch (err) {
    log.close();
    throw err;
  }
  log.follow(launched.output);
  const { pid } = launched;
  let exit: { code: number | null; signal: string | null } | undefined;
  void launched.exited.then((e) => (exit = e));
  const startedAt = Date.now();
  const label = plan.names[0];
  const arrival = await waitForArrival(pipeline, desktop, pid, () => exit, appsBefore, plan, call);
  const ms = Date.now() - startedAt;
  const watch = pipeline.launches;
  /** Everything the launch started that still runs, and `more`, stopped by pid. */
  const stopAll = async (more: number[] = []) => {
    await watch.stop(desktop, [...(await watch.family(desktop, pid)), ...more]);
  };
  // What it printed before it exited or was stopped is in the log first.
  const tail = async () => {
    await log.settled(LOG_SETTLE_MS);
    return logTail(log.path);
  };
  switch (arrival.kind) {
    case 'denied':
      await stopAll();
      throw new AxError(
        'blocked',
        `${label} (pid ${pid}) started a program this server's policy denies: it was stopped, and so was everything else the launch started`,
        'Pick another app; the deny list is set by whoever runs the server (AXPAGE_DENY_APPS or --deny-apps)',
      );
    case 'cancelled':
      await stopAll();
      throw new AxError('action_failed', `launch of ${label} cancelled: stopped pid ${pid}`);
    case 'exited':
      throw new AxError(
        'action_failed',
        `${label} (pid ${pid}) exited (${exit?.signal ?? `code ${exit?.code}`}) after ${ms} ms without showing a window${await tail()}`,
        `Its output is in ${log.path}. Check the command and its arguments, or start it from a terminal to see why`,
        { pid, log: log.path },
      );
    case 'timeout':
      await stopAll(arrival.registered ? [arrival.registered.pid] : []);
      throw new AxError(
        'action_failed',
        `${label} (pid ${pid}) did not ${arrival.registered ? 'show a window' : 'appear on the accessibility bus'} within ${call.timeoutMs} ms, so it was stopped${await tail()}`,
        arrival.registered
          ? 'An app that starts to the background (a tray icon, a daemon) shows no window to observe: start it with the option that opens its window'
          : 'If the machine is busy, try again; an app that never appears may lack accessibility support or its toolkit bridge (GTK: at-spi2-core, libatk-adaptor; Qt: qt-at-spi)',
        { pid, log: log.path },
      );
    case 'ready':
    case 'handed-off':
      break;
  }
  const { app } = arrival;
  try {
    // The name it registered may be one the lists block though the command's was not.
    pipeline.policy.checkApp(app);
  } catch (err) {
    if (arrival.kind === 'ready') await stopAll([app.pid]);
    const what = arrival.kind === 'ready' ? `; stopped what was started (pid ${pid})` : '';
    if (err instanceof AxError) throw new AxError(err.code, `${err.message}${what}`, err.hint);
    throw err;
  }
  // What it started goes on being watched while it runs (a child may exec a denied program later).
  if (arrival.kind === 'ready') watch.watch(pid);
  if (arrival.kind === 'handed-off') await frontWithin(desktop, app.pid, HANDOFF_FRONT_MS);
  const source = plan.source ? ` from ${path.basename(plan.source)}` : '';
  const front = (await desktop.frontmost().catch(() => null))?.pid === app.pid;
  const did =
    (arrival.kind === 'ready'
      ? `Launched ${app.name} (pid ${app.pid})${source} in ${ms} ms`
      : `${app.name} was already running (pid ${app.pid}): the new process (pid ${pid}) handed off to it and exited`) +
    `; ${front ? 'it is frontmost; ' : ''}go on with app ${app.pid}`;
  return pipeline.observe(call, {
    app: app.pid,
    describe: () => did,
    inspect: async ({ view }) => ({
      launched: {
        pid,
        app_pid: app.pid,
        argv: plan.argv,
        ...(plan.source ? { desktop_file: plan.source } : {}),
        handed_off: arrival.kind === 'handed-off',
        log: log.path,
        ms,
      },
      // The handoff: the app the agent goes on with.
      app_switch: {
        name: app.name,
        pid: app.pid,
        elements: view.snapshot.elements.length,
        visible: view.visible.filter(Boolean).length,
        visible_elements: [],
      },
    }),
  });
}

async function planOrExplain(desktop: Desktop, request: LaunchRequest): Promise<LaunchPlan> {
  try {
    return await desktop.planLaunch(request);
  } catch (err) {
    if (!(err instanceof PlatformError) || err.code !== 'failed') throw err;
    const near = err.facts.near;
    throw new AxError(
      'command' in request ? 'bad_argument' : 'app_not_found',
      `${err.message}; nothing was started`,
      'command' in request
        ? 'Pass the program by its full path or one on PATH'
        : near
          ? `Did you mean ${near}? Or pass command: ["program", ...]`
          : 'Pass the desktop-file id (as in /usr/share/applications/<id>.desktop) or command: ["program", ...]',
      { ...err.facts },
    );
  }
}

/**
 * Waits until the process (or one it started: launchers fork) is on the accessibility
 * bus with a window on screen. A process that exits first may have handed off to a
 * running instance of the same app (single-instance apps): that one is the answer. What
 * the launch started counts as long as it runs, its parent gone or not (launch-watch.ts);
 * any of it that runs a program the deny list names ends the wait: the launch is denied.
 */
async function waitForArrival(
  pipeline: Pipeline,
  desktop: Desktop,
  pid: number,
  exitOf: () => { code: number | null; signal: string | null } | undefined,
  appsBefore: AppInfo[],
  plan: LaunchPlan,
  call: LaunchCall,
): Promise<Arrival> {
  const end = Date.now() + call.timeoutMs;
  // What the launch started, seen so far: a launcher's child outlives it and is reparented away.
  const family = new Set([pid]);
  let registered: AppInfo | undefined;
  let registeredAt = 0;
  for (;;) {
    // Read before the look: whatever the process started before it exited is in the look.
    const exit = exitOf();
    const now = await pipeline.launches.family(desktop, pid);
    for (const p of now) family.add(p);
    // Checked on every look: a child forked a moment ago may only now run what it execs.
    if (pipeline.launches.denied(now).length > 0) return { kind: 'denied' };
    const apps = await desktop.listApps().catch(() => [] as AppInfo[]);
    registered = apps.find((a) => family.has(a.pid));
    // Not answering yet (a big app's main loop is busy loading): its name is unread and
    // it cannot be observed, so it has not arrived.
    if (registered && registered.responding !== false) {
      registeredAt ||= Date.now();
      if (await showsWindow(desktop, registered, Date.now() - registeredAt)) {
        return { kind: 'ready', app: registered };
      }
    }
    if (exit && !registered && !(await anyRunning(desktop, family, pid))) {
      const running = handoffTarget(apps, appsBefore, plan);
      if (running && exit.code === 0) return { kind: 'handed-off', app: running, code: exit.code };
      return { kind: 'exited', ...exit };
    }
    if (call.signal?.aborted) return { kind: 'cancelled' };
    if (Date.now() >= end) return { kind: 'timeout', registered };
    call.notify.progress(
      registered ? `${registered.name}: waiting for a window` : 'waiting for the app to appear',
      call.timeoutMs,
    );
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * The window system shows a window of the app. Windows that do not say their pid (no
 * _NET_WM_PID on X11) are invisible to that check: after a grace period the app's own
 * accessible windows are taken instead, as they are when there is no window system to ask.
 */
async function showsWindow(desktop: Desktop, app: AppInfo, registeredMs: number): Promise<boolean> {
  try {
    if ((await desktop.listWindows(app.pid)).length > 0) return true;
  } catch {
    return app.windows > 0;
  }
  return registeredMs >= UNNAMED_WINDOW_GRACE_MS && app.windows > 0;
}

async function anyRunning(desktop: Desktop, family: Set<number>, pid: number): Promise<boolean> {
  for (const p of family) if (p !== pid && (await desktop.isRunning(p))) return true;
  return false;
}

/**
 * The running instance a single-instance launch handed off to: an app that ran before
 * the launch and goes by one of the launch's names; the frontmost one first.
 */
function handoffTarget(apps: AppInfo[], before: AppInfo[], plan: LaunchPlan): AppInfo | undefined {
  const wasThere = new Set(before.map((a) => a.pid));
  const named = apps.filter(
    (a) => wasThere.has(a.pid) && plan.names.some((n) => n.toLowerCase() === a.name.toLowerCase()),
  );
  return named.find((a) => a.active) ?? named[0];
}

/** Bounded wait for the running instance to front the window it opened for us. */
async function frontWithin(desktop: Desktop, pid: number, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if ((await desktop.frontmost().catch(() => null))?.pid === pid) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * A private log in the artifact dir for the app's stdout and stderr: created 0600, never
 * through a symlink, written by this server with every known secret masked (launch-log.ts).
 * Older launch logs beyond KEEP_LOGS are removed.
 */
async function openLog(pipeline: Pipeline, plan: LaunchPlan): Promise<LaunchLog> {
  const dir = resolveArtifactDir({ ...process.env, AXPAGE_OUT: pipeline.config.outDir });
  await ensurePrivateDir(dir);
  await pruneLogs(dir);
  const base = path
    .basename(plan.argv[0])
    .replace(/[^\w.-]/g, '_')
    .slice(0, 40);
  const file = path.join(dir, `launch-${Date.now()}-${base}.log`);
  const fd = openSync(
    file,
    constants.O_WRONLY |
      constants.O_CREAT |
      constants.O_EXCL |
      constants.O_NOFOLLOW |
      constants.O_APPEND,
    0o600,
  );
  const log: LaunchLog = new LaunchLog(file, fd, pipeline.selections.echoes, () =>
    pipeline.launchLogs.delete(log),
  );
  pipeline.launchLogs.add(log);
  return log;
}

async function pruneLogs(dir: string): Promise<void> {
  const logs = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => /^launch-\d+-.*\.log$/.test(n))
    .sort((a, b) => Number(a.split('-')[1]) - Number(b.split('-')[1]));
  for (const old of logs.slice(0, Math.max(0, logs.length - (KEEP_LOGS - 1)))) {
    await unlink(path.join(dir, old)).catch(() => undefined);
  }
}

/** The last lines of the app's output, for an error message. */
async function logTail(file: string): Promise<string> {
  const text = (await readFile(file, 'utf8').catch(() => '')).trimEnd();
  const last = text.split('\n').slice(-10).join('\n').slice(-1500);
  return last ? `. Its output ends:\n${last}` : '. It printed nothing';
}
