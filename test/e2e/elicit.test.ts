/**
 * Asking the person (MCP elicitation, form mode), end to end: real servers on one headless
 * desktop, driven by clients that answer the server's questions with a pick, a decline or
 * a cancel, and by a client that declared no elicitation. The fixture's own log (its JSON
 * events) says what was and was not done; a later harmless click is the fence that shows
 * an event did not come.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDesktop, type HeadlessDesktop } from '../../src/desktop/headless.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { fixtureApp } from '../../src/harness/session.js';
import { startServeClient, type ServeClient } from '../../src/harness/serve-client.js';
import { startHttpServe, type HttpServeProcess } from '../../src/harness/http-serve.js';
import {
  connectElicitHttp,
  startElicitClient,
  type ElicitClient,
  type Question,
} from '../../src/harness/elicit-client.js';
import { parseSummary } from '../../src/harness/summary-parse.js';

let desktop: HeadlessDesktop;
let first: LaunchedApp;
let second: LaunchedApp;
let out: string;
const closers: Array<() => Promise<unknown>> = [];

async function launchAsking(title: string): Promise<LaunchedApp> {
  const app = await desktop.launch(
    '/usr/bin/python3',
    [fixtureApp('asking.py'), '--title', title],
    {
      stdio: 'pipe',
    },
  );
  await app.output!.waitForEvent((e) => e.event === 'ready', { timeoutMs: 15_000 });
  return app;
}

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...(desktop.processEnv() as Record<string, string>),
    AXPAGE_OUT: fs.mkdtempSync(path.join(out, 'artifacts-')),
    ...extra,
  };
}

async function eliciting(extra: Record<string, string> = {}): Promise<ElicitClient> {
  const c = await startElicitClient({ env: env(extra) });
  closers.push(() => c.close());
  return c;
}

async function plain(extra: Record<string, string> = {}): Promise<ServeClient> {
  const c = await startServeClient({ env: env(extra) });
  closers.push(() => c.close());
  return c;
}

/** The fixture's clicked events of `widget` from `from` on. */
function clicks(app: LaunchedApp, widget: string, from = 0): number {
  return app.output!.events.slice(from).filter((e) => e.event === 'clicked' && e.widget === widget)
    .length;
}

/**
 * Clicks Keep in `app` (no question: its name destroys nothing) and waits for the app to
 * report it: everything an earlier call caused has been reported by then.
 */
async function fence(c: { call: ServeClient['call'] }, app: LaunchedApp): Promise<void> {
  const from = app.output!.events.length;
  const r = await c.call('ax_click', { app: app.pid, query: 'button:Keep' });
  expect(r.isError, r.text).toBe(false);
  await app.output!.waitForEvent((e) => e.event === 'clicked' && e.widget === 'keep', {
    from,
    timeoutMs: 15_000,
  });
}

function choices(q: Question): Array<{ const: string; title: string }> {
  return q.requestedSchema.properties.choice?.oneOf ?? [];
}

beforeAll(async () => {
  desktop = await startDesktop();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-elicit-'));
  first = await launchAsking('Asking One');
  second = await launchAsking('Asking Two');
}, 60_000);

afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await first?.stop().catch(() => undefined);
  await second?.stop().catch(() => undefined);
  await desktop?.stop().catch(() => undefined);
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

describe('over stdio, a client that answers questions', () => {
  let c: ElicitClient;
  beforeAll(async () => {
    c = await eliciting();
  }, 60_000);

  it('asks which app when a name fits two, and acts on the one picked in the same call', async () => {
    c.answerWith((q) => {
      const pick = choices(q).find((o) => o.title.includes('Asking Two'));
      return { action: 'accept', content: { choice: pick!.const } };
    });
    const before = { one: first.output!.events.length, two: second.output!.events.length };
    const r = await c.call('ax_click', { app: 'asking.py', query: 'button:Keep' });
    expect(r.isError, r.text).toBe(false);
    const q = c.questions.at(-1)!;
    // The question names each app by name, pid and window title.
    expect(q.message).toContain('"asking.py"');
    const titles = choices(q).map((o) => o.title);
    expect(titles.some((t) => t.includes(`pid ${first.pid}`) && t.includes('"Asking One"'))).toBe(
      true,
    );
    expect(titles.some((t) => t.includes(`pid ${second.pid}`) && t.includes('"Asking Two"'))).toBe(
      true,
    );
    await second.output!.waitForEvent((e) => e.event === 'clicked' && e.widget === 'keep', {
      from: before.two,
      timeoutMs: 15_000,
    });
    await fence(c, first);
    // The first app got only the fence's click.
    expect(clicks(first, 'keep', before.one)).toBe(1);
    expect(parseSummary(r.text).fields.asked).toContain(`picked ${second.pid}`);
  });

  it('asks which element when a query fits two equally well, and clicks the pick', async () => {
    c.answerWith((q) => {
      const options = choices(q);
      // Left to right: the one further right.
      return { action: 'accept', content: { choice: options[options.length - 1].const } };
    });
    const from = first.output!.events.length;
    const r = await c.call('ax_click', { app: first.pid, query: 'Open' });
    expect(r.isError, r.text).toBe(false);
    const q = c.questions.at(-1)!;
    expect(q.message).toContain('"Open"');
    expect(q.message).toContain(`(pid ${first.pid})`);
    expect(q.message).toContain('"Asking One"');
    expect(choices(q)).toHaveLength(2);
    expect(choices(q)[0].title).toMatch(/"Open" at \d+,\d+/);
    await first.output!.waitForEvent((e) => e.event === 'clicked' && e.widget === 'open-right', {
      from,
      timeoutMs: 15_000,
    });
    await fence(c, first);
    expect(clicks(first, 'open-left', from)).toBe(0);
  });

  it('confirms a click on "Delete all" first: yes clicks it', async () => {
    c.answerWith(() => ({ action: 'accept', content: { confirm: true } }));
    const from = first.output!.events.length;
    const asked = c.questions.length;
    const r = await c.call('ax_click', { app: first.pid, query: 'button:Delete all' });
    expect(r.isError, r.text).toBe(false);
    expect(c.questions.length).toBe(asked + 1);
    const q = c.questions.at(-1)!;
    expect(q.message).toContain('"Delete all"');
    expect(q.message).toContain('"Asking One"');
    expect(q.requestedSchema.properties.confirm?.type).toBe('boolean');
    await first.output!.waitForEvent((e) => e.event === 'clicked' && e.widget === 'delete', {
      from,
      timeoutMs: 15_000,
    });
    expect(parseSummary(r.text).fields.asked).toContain('the person confirmed');
  });

  for (const action of ['decline', 'cancel'] as const) {
    it(`a ${action} leaves "Delete all" unclicked and says the person declined`, async () => {
      c.answerWith(() => ({ action }));
      const from = first.output!.events.length;
      const r = await c.call('ax_click', { app: first.pid, query: 'button:Delete all' });
      expect(r.isError).toBe(true);
      expect(r.structured.error_code).toBe('declined');
      expect(r.text).toMatch(action === 'cancel' ? /cancelled/ : /declined/);
      expect(r.text).toContain('nothing was done');
      await fence(c, first);
      expect(clicks(first, 'delete', from)).toBe(0);
    });
  }

  it('an accept that does not confirm counts as no', async () => {
    c.answerWith(() => ({ action: 'accept', content: { confirm: false } }));
    const from = first.output!.events.length;
    const r = await c.call('ax_click', { app: first.pid, query: 'button:Delete all' });
    expect(r.structured.error_code).toBe('declined');
    await fence(c, first);
    expect(clicks(first, 'delete', from)).toBe(0);
  });

  it('Return pressed on the focused "Delete all" is confirmed too', async () => {
    c.answerWith(() => ({ action: 'decline' }));
    const from = first.output!.events.length;
    const asked = c.questions.length;
    const r = await c.call('ax_key_press', {
      app: first.pid,
      query: 'button:Delete all',
      key: 'Return',
    });
    expect(r.structured.error_code, r.text).toBe('declined');
    expect(c.questions.length).toBe(asked + 1);
    expect(c.questions.at(-1)!.message).toContain('press Return on the push button "Delete all"');
    await fence(c, first);
    expect(clicks(first, 'delete', from)).toBe(0);
  });

  it('a workflow step on "Delete all" is asked about too; no stops the workflow there', async () => {
    c.answerWith(() => ({ action: 'decline' }));
    const from = first.output!.events.length;
    const asked = c.questions.length;
    const r = await c.call('ax_workflow', {
      steps: [
        { tool: 'ax_click', args: { app: first.pid, query: 'button:Keep' } },
        { tool: 'ax_click', args: { app: first.pid, query: 'button:Delete all' } },
      ],
    });
    expect(r.isError).toBe(true);
    expect(c.questions.length).toBe(asked + 1);
    expect(r.text).toMatch(/asked: destructive .*"Delete all".*declined/);
    await first.output!.waitForEvent((e) => e.event === 'clicked' && e.widget === 'keep', {
      from,
      timeoutMs: 15_000,
    });
    await fence(c, first);
    expect(clicks(first, 'delete', from)).toBe(0);
  });
});

describe('a client that declared no elicitation', () => {
  let c: ServeClient;
  beforeAll(async () => {
    c = await plain();
  }, 60_000);

  it('gets the ambiguity error listing the pids, as before, and nothing is clicked', async () => {
    const from = { one: first.output!.events.length, two: second.output!.events.length };
    const r = await c.call('ax_click', { app: 'asking.py', query: 'button:Keep' });
    expect(r.isError).toBe(true);
    expect(r.structured.error_code).toBe('app_ambiguous');
    expect(r.text).toContain(`pid ${first.pid}`);
    await fence(c, first);
    await fence(c, second);
    expect(clicks(first, 'keep', from.one)).toBe(1);
    expect(clicks(second, 'keep', from.two)).toBe(1);
  });

  it('with the default setting goes ahead with "Delete all" and says it was not asked', async () => {
    const from = first.output!.events.length;
    const r = await c.call('ax_click', { app: first.pid, query: 'button:Delete all' });
    expect(r.isError, r.text).toBe(false);
    await first.output!.waitForEvent((e) => e.event === 'clicked' && e.widget === 'delete', {
      from,
      timeoutMs: 15_000,
    });
    expect(parseSummary(r.text).fields.asked).toMatch(/not asked .*went ahead/);
  });

  it('with --confirm-destructive always refuses it, and nothing is clicked', async () => {
    const strict = await plain({ AXPAGE_CONFIRM_DESTRUCTIVE: 'always' });
    const from = first.output!.events.length;
    const r = await strict.call('ax_click', { app: first.pid, query: 'button:Delete all' });
    expect(r.isError).toBe(true);
    expect(r.structured.error_code).toBe('confirmation_required');
    await fence(strict, first);
    expect(clicks(first, 'delete', from)).toBe(0);
  });
});

describe('safe mode: text into a password field', () => {
  const secret = 'pw-9f3b27e1c4';

  it('asks once; yes types it, and the audit log has the answer but never the text', async () => {
    const serverEnv = env({ AXPAGE_MODE: 'safe' });
    const c = await startElicitClient({ env: serverEnv });
    closers.push(() => c.close());
    c.answerWith(() => ({ action: 'accept', content: { confirm: true } }));
    const from = first.output!.events.length;
    const r = await c.call('ax_type', { app: first.pid, query: 'Password', text: secret });
    expect(r.isError, r.text).toBe(false);
    expect(c.questions).toHaveLength(1);
    expect(c.questions[0].message).toContain('"Password"');
    expect(c.questions[0].message).not.toContain(secret);
    await first.output!.waitForEvent(
      (e) => e.event === 'changed' && e.widget === 'pw' && e.length === secret.length,
      { from, timeoutMs: 15_000 },
    );
    const audit = fs.readFileSync(path.join(serverEnv.AXPAGE_OUT, 'audit.jsonl'), 'utf8');
    const line = audit
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.tool === 'ax_type');
    expect(line?.asked).toEqual([
      expect.objectContaining({ question: 'password_typing', answer: 'accept' }),
    ]);
    for (const file of fs.readdirSync(serverEnv.AXPAGE_OUT)) {
      const p = path.join(serverEnv.AXPAGE_OUT, file);
      if (fs.statSync(p).isFile()) expect(fs.readFileSync(p).includes(secret), file).toBe(false);
    }
  });

  it('ax_set_value into the field is asked about the same way', async () => {
    const c = await eliciting({ AXPAGE_MODE: 'safe' });
    c.answerWith(() => ({ action: 'accept', content: { confirm: true } }));
    const from = first.output!.events.length;
    const value = 'set-7d2a';
    const r = await c.call('ax_set_value', { app: first.pid, query: 'Password', value });
    expect(r.isError, r.text).toBe(false);
    expect(c.questions).toHaveLength(1);
    expect(c.questions[0].message).not.toContain(value);
    await first.output!.waitForEvent(
      (e) => e.event === 'changed' && e.widget === 'pw' && e.length === value.length,
      { from, timeoutMs: 15_000 },
    );
  });

  it('no leaves the field untouched and is an error saying the person declined', async () => {
    const c = await eliciting({ AXPAGE_MODE: 'safe' });
    c.answerWith(() => ({ action: 'decline' }));
    const from = first.output!.events.length;
    const r = await c.call('ax_type', { app: first.pid, query: 'Password', text: 'other-text' });
    expect(r.structured.error_code, r.text).toBe('declined');
    await fence(c, first);
    expect(
      first.output!.events.slice(from).filter((e) => e.event === 'changed' && e.widget === 'pw'),
    ).toEqual([]);
  });

  it('a client that cannot be asked gets the refusal, as before', async () => {
    const c = await plain({ AXPAGE_MODE: 'safe' });
    const from = first.output!.events.length;
    const r = await c.call('ax_type', { app: first.pid, query: 'Password', text: 'third-text' });
    expect(r.isError).toBe(true);
    expect(r.structured.error_code).toBe('blocked');
    await fence(c, first);
    expect(
      first.output!.events.slice(from).filter((e) => e.event === 'changed' && e.widget === 'pw'),
    ).toEqual([]);
  });
});

describe('safe mode: a command off the launch allow list', () => {
  /** Processes whose command line holds `marker` (the launched fixture's title). */
  function running(marker: string): number[] {
    return fs
      .readdirSync('/proc')
      .filter((d) => /^[0-9]+$/.test(d))
      .filter((d) => {
        try {
          return fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(marker);
        } catch {
          return false;
        }
      })
      .map(Number);
  }

  it('yes starts it this once; no starts nothing and says the person declined', async () => {
    const c = await eliciting({ AXPAGE_MODE: 'safe' });
    c.answerWith(() => ({ action: 'decline' }));
    const declinedTitle = 'Asking Declined Launch';
    const no = await c.call('ax_launch_app', {
      command: ['/usr/bin/python3', fixtureApp('asking.py'), '--title', declinedTitle],
    });
    expect(no.structured.error_code, no.text).toBe('declined');
    expect(c.questions[0].message).toMatch(/start "\/usr\/bin\/python3[^"]*" with 3 arguments/);
    expect(c.questions[0].message).not.toContain(declinedTitle);
    expect(running(declinedTitle)).toEqual([]);

    c.answerWith(() => ({ action: 'accept', content: { confirm: true } }));
    const title = 'Asking Allowed Launch';
    const yes = await c.call('ax_launch_app', {
      command: ['/usr/bin/python3', fixtureApp('asking.py'), '--title', title],
    });
    expect(yes.isError, yes.text).toBe(false);
    const pids = running(title);
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) process.kill(pid, 'SIGTERM');
  });
});

describe('over HTTP', () => {
  const TOKEN = 'elicit-e2e-token-0123456789';
  let server: HttpServeProcess;
  beforeAll(async () => {
    server = await startHttpServe({ env: env({ AXPAGE_TOKEN: TOKEN }) });
    closers.push(() => server.stop());
  }, 60_000);

  it('the question goes back to the client that made the call, and its pick is used', async () => {
    const asking = await connectElicitHttp(server.url, TOKEN);
    const other = await connectElicitHttp(server.url, TOKEN);
    closers.push(
      () => asking.close(),
      () => other.close(),
    );
    other.answerWith(() => {
      throw new Error('the other session was asked');
    });
    asking.answerWith((q) => {
      const pick = choices(q).find((o) => o.title.includes('Asking Two'));
      return { action: 'accept', content: { choice: pick!.const } };
    });
    const from = second.output!.events.length;
    const r = await asking.call('ax_click', { app: 'asking.py', query: 'button:Keep' });
    expect(r.isError, r.text).toBe(false);
    expect(asking.questions).toHaveLength(1);
    expect(other.questions).toHaveLength(0);
    await second.output!.waitForEvent((e) => e.event === 'clicked' && e.widget === 'keep', {
      from,
      timeoutMs: 15_000,
    });
  });
});
