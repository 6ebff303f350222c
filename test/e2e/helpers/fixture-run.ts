/**
 * One fixture app on a desktop and server of its own, for a test file that drives that one
 * app: the start, launch and stop every such file repeats, and the calls aimed at the app.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { LaunchedApp } from '../../../src/desktop/apps.js';
import { Session, type CallResult, type SessionOptions } from '../../../src/harness/session.js';

export type FixtureEvent = Record<string, unknown>;

export interface FixtureRun {
  readonly session: Session;
  readonly app: LaunchedApp;
  /** Everything the fixture has logged so far. */
  events(): FixtureEvent[];
  /** A tool call aimed at the fixture (its pid as `app`, unless args name another). */
  call(tool: string, args: Record<string, unknown>): Promise<CallResult>;
  /** The first event the fixture logs, from index `from` on, that matches. */
  waitFor(pred: (e: FixtureEvent) => boolean, from?: number): Promise<FixtureEvent>;
}

export interface FixtureRunOptions {
  /** A new desktop, server and app for every test (default: one for the whole file). */
  perTest?: boolean;
  session?: SessionOptions;
  /** Extra environment for the fixture app. */
  appEnv?: Record<string, string>;
}

/** Registers the hooks that start `fixture` (test/fixtures/apps/<fixture>) and stop it. */
export function fixtureRun(fixture: string, opts: FixtureRunOptions = {}): FixtureRun {
  let session: Session | undefined;
  let app: LaunchedApp | undefined;
  const [before, after] = opts.perTest ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    session = await Session.start(opts.session);
    app = await session.launchFixture(fixture, [], { env: opts.appEnv });
  });
  after(async () => {
    await session?.close();
    session = undefined;
    app = undefined;
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not started: use it inside a test`);
    return value;
  };
  return {
    get session() {
      return started(session, 'the session');
    },
    get app() {
      return started(app, fixture);
    },
    events: () => app?.output?.events ?? [],
    call: (tool, args) =>
      started(session, 'the session').call(tool, { app: started(app, fixture).pid, ...args }),
    waitFor: (pred, from = 0) =>
      started(app, fixture).output!.waitForEvent(pred, { from, timeoutMs: 15_000 }),
  };
}
