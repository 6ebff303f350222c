/**
 * A client started from a desktop launcher passes its server a bare environment (no
 * DISPLAY, no session bus). The server finds the session the client runs in (its own
 * environment, read from /proc) and works: it says on stderr and in ax_is_accessible
 * which variables it took from where, and observes and clicks an app of that desktop,
 * whose own events confirm the click.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { pollUntil } from '../../src/desktop/procs.js';
import { startServeClient, type ServeClient } from '../../src/harness/serve-client.js';
import { packageRoot, Session } from '../../src/harness/session.js';

const BARE_CLIENT = fileURLToPath(new URL('./helpers/bare-client.mjs', import.meta.url));

let session: Session;
let form: LaunchedApp;
let client: ServeClient;
let stderr = '';

beforeAll(async () => {
  session = await Session.start();
  form = await session.launchFixture('form.py');
  const desktopEnv = session.desktop.processEnv() as Record<string, string>;
  expect(desktopEnv.DISPLAY).toBeTruthy();
  client = await startServeClient({
    // The launcher runs with the desktop's environment; the server gets only the bare one
    // (and AXPAGE_OUT, as a client config's `env` would give it).
    env: {
      ...desktopEnv,
      AXPAGE_OUT: session.artifactDir,
      BARE_CLIENT_KEEP: 'AXPAGE_OUT',
      BARE_CLIENT_CLI: path.join(packageRoot(), 'dist', 'cli.js'),
    },
    cli: BARE_CLIENT,
    onStderr: (chunk) => (stderr += chunk),
  });
}, 60_000);

afterAll(async () => {
  await client?.close();
  await session?.close();
});

it('finds the display and bus of the session its client runs in, and says so', async () => {
  const r = await client.call('ax_is_accessible', {});
  expect(r.isError, r.text).toBe(false);
  const display = session.desktop.env.DISPLAY;
  const details = r.structured.details as Record<string, unknown>;
  expect(details.session_env).toMatch(
    new RegExp(`took DISPLAY=${display}, .*DBUS_SESSION_BUS_ADDRESS`),
  );
  expect(details.display).toBe(display);
  expect(stderr).toMatch(/the client passed no desktop session: took DISPLAY=/);
});

it('observes and clicks an app of that desktop', async () => {
  const tree = await client.call('ax_get_tree', { app: form.pid });
  expect(tree.isError, tree.text).toBe(false);
  const from = form.output!.events.length;
  const click = await client.call('ax_click', { app: form.pid, query: 'button:Submit' });
  expect(click.isError, click.text).toBe(false);
  await pollUntil(
    () =>
      form.output!.events.slice(from).some((e) => e.event === 'clicked' && e.widget === 'submit'),
    {
      timeoutMs: 15_000,
      what: "the form's own clicked event",
    },
  );
});
