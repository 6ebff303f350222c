/**
 * Whose processes a denied program's are: what a denied program started is denied while it
 * runs, though it is no app itself (a command-line program that pops a dialog up); what
 * this server launches is its own, even when a denied program started the server (its
 * client's terminal). Here the denied program is this test's process, by pid: it starts
 * the fixture and the server alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, fixtureApp, type CallResult } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';

let session: Session;
let fixture: LaunchedApp;

const pidsOf = (r: CallResult) => (r.structured.apps as Array<{ pid: number }>).map((a) => a.pid);

beforeAll(async () => {
  session = await Session.start({ serverEnv: { AXPAGE_DENY_APPS: String(process.pid) } });
  fixture = await session.launchFixture('toggles.py');
}, 60_000);

afterAll(async () => {
  await session?.close();
});

describe('the lineage of a denied program', () => {
  it('hides what it started, and not what the server launched', async () => {
    const before = await session.call('ax_list_apps', {});
    expect(before.isError, before.text).toBe(false);
    expect(pidsOf(before)).not.toContain(fixture.pid);
    expect(before.structured.left_out).toBe(1);
    const tree = await session.call('ax_get_tree', { app: fixture.pid });
    expect(tree.structured.error_code).toBe('app_not_found');

    const launched = await session.call('ax_launch_app', {
      command: ['/usr/bin/python3', fixtureApp('rich.py')],
    });
    expect(launched.isError, launched.text).toBe(false);
    const pid = (launched.structured.launched as { app_pid: number }).app_pid;
    const after = await session.call('ax_list_apps', {});
    expect(pidsOf(after)).toContain(pid);
    expect(after.structured.left_out).toBe(1);
    const own = await session.call('ax_get_tree', { app: pid });
    expect(own.isError, own.text).toBe(false);
    const quit = await session.call('ax_quit_app', { app: pid });
    expect(quit.isError, quit.text).toBe(false);
  });
});
