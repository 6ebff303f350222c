/**
 * Resources, templates, completions, subscriptions and prompts through the SDK client over
 * stdio on a real desktop. Effects are checked against the apps themselves (the fixture's
 * own window title and events, the pids we launched) and the files on disk.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';

const ResourceUpdated = z.object({
  method: z.literal('notifications/resources/updated'),
  params: z.object({ uri: z.string() }),
});

let session: Session;
let form: LaunchedApp;
let home: string;
const updates: string[] = [];

/** Generous bound on an event-driven update (debounce 400 ms, a loaded 2-core box). */
const UPDATE_WAIT_MS = 15_000;
/** The quiet period in which an idle desktop must send nothing. */
const QUIET_MS = 3_000;

beforeAll(async () => {
  session = await Session.start();
  session.client.setNotificationHandler(ResourceUpdated, (n) => {
    updates.push(n.params.uri);
  });
  form = await session.launchFixture('form.py');
  // A private HOME: galculator writes its settings there on exit.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-surface-'));
}, 60_000);

afterAll(async () => {
  await session?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

function textOf(result: { contents: object[] }): string {
  return String((result.contents[0] as { text?: string } | undefined)?.text ?? '');
}

async function readJson(uri: string): Promise<Record<string, unknown>> {
  return JSON.parse(textOf(await session.client.readResource({ uri }))) as Record<string, unknown>;
}

async function complete(
  uriTemplate: string,
  name: string,
  value: string,
  context?: Record<string, string>,
) {
  const r = await session.client.complete({
    ref: { type: 'ref/resource', uri: uriTemplate },
    argument: { name, value },
    ...(context ? { context: { arguments: context } } : {}),
  });
  return r.completion.values;
}

/** Resolves when `uri` has been updated more than `seen` times; fails after the wait. */
async function nextUpdate(uri: string, seen: number): Promise<void> {
  const deadline = Date.now() + UPDATE_WAIT_MS;
  while (updates.filter((u) => u === uri).length <= seen) {
    if (Date.now() > deadline) throw new Error(`no resources/updated for ${uri}; got ${updates}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const count = (uri: string) => updates.filter((u) => u === uri).length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pairFiles(): string[] {
  return fs.readdirSync(session.artifactDir).filter((n) => /^\d.*_[a-z_]+\.(txt|png)$/.test(n));
}

describe('resources', () => {
  it('lists the fixed resources and the templates, and says it can subscribe', async () => {
    const { resources } = await session.client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([
      'axpage://apps',
      'axpage://artifacts',
      'axpage://recording/start',
      'axpage://recording/status',
      'axpage://recording/stop',
      'axpage://status',
    ]);
    const { resourceTemplates } = await session.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'axpage://app/{name}/element/{ref}',
      'axpage://app/{name}/tree',
      'axpage://app/{name}/windows',
      'axpage://pair/{id}',
      'axpage://recording/start{?app,limit_seconds}',
      'axpage://recording/start{?app}',
      'axpage://recording/start{?limit_seconds}',
    ]);
    expect(session.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
  });

  it('reports the accessibility status of the desktop it runs on', async () => {
    const status = await readJson('axpage://status');
    expect(status.ok).toBe(true);
    expect(JSON.stringify(status.details)).toContain(session.desktop.processEnv().DISPLAY);
  });

  it('lists the running apps with the pids we launched and their window titles', async () => {
    const { apps } = (await readJson('axpage://apps')) as {
      apps: Array<{ pid: number; window_titles: string[] }>;
    };
    const mine = apps.find((a) => a.pid === form.pid);
    expect(mine?.window_titles).toContain('Fixture Form');
  });

  it('reads an app tree through the pipeline: a new pair on disk, naming what the app shows', async () => {
    const before = new Set(pairFiles());
    const tree = textOf(
      await session.client.readResource({ uri: `axpage://app/${form.pid}/tree` }),
    );
    // The fixture's own window title and labels (test/fixtures/apps/form.py).
    expect(tree).toContain('"Fixture Form"');
    for (const label of ['Name', 'Email', 'Subscribe', 'Submit'])
      expect(tree).toContain(`"${label}`);
    const added = pairFiles().filter((n) => !before.has(n));
    expect(added.some((n) => n.endsWith('_get_tree.txt'))).toBe(true);
    const file = added.find((n) => n.endsWith('.txt'))!;
    expect(fs.readFileSync(path.join(session.artifactDir, file), 'utf8')).toBe(tree);
  });

  it('indexes the pairs newest first and serves each pair by id (text + PNG)', async () => {
    await session.call('ax_list_windows', { app: form.pid });
    const index = (await readJson('axpage://artifacts')) as {
      total: number;
      pairs: Array<{
        id: string;
        tool: string;
        pid?: number;
        tree?: { uri: string; bytes: number };
      }>;
    };
    const onDisk = new Set(pairFiles().map((n) => n.replace(/\.(txt|png)$/, '')));
    expect(index.total).toBe(onDisk.size);
    expect(index.pairs[0].tool).toBe('list_windows');
    expect(index.pairs[0].pid).toBe(form.pid);
    const ids = index.pairs.map((p) => p.id);
    expect([...ids].sort().reverse()).toEqual(ids);

    const pair = await session.client.readResource({ uri: `axpage://pair/${ids[0]}` });
    const [tree, png] = pair.contents as Array<{ mimeType: string; text?: string; blob?: string }>;
    expect(tree.mimeType).toBe('text/plain');
    expect(tree.text).toBe(
      fs.readFileSync(path.join(session.artifactDir, `${ids[0]}.txt`), 'utf8'),
    );
    expect(Buffer.byteLength(tree.text!)).toBe(index.pairs[0].tree?.bytes);
    expect(png.mimeType).toBe('image/png');
    expect(Buffer.from(png.blob!, 'base64').subarray(0, 8).toString('latin1')).toBe(
      '\x89PNG\r\n\x1a\n',
    );
    await expect(
      session.client.readResource({ uri: 'axpage://pair/1000_get_tree' }),
    ).rejects.toThrow(/no pair 1000_get_tree/);
    await expect(session.client.readResource({ uri: 'axpage://pair/..%2Fsecret' })).rejects.toThrow(
      /not a pair id/,
    );
  });

  it("lists an app's windows, and an unknown app is an actionable error", async () => {
    const { windows } = (await readJson(`axpage://app/${form.pid}/windows`)) as {
      windows: Array<{ title: string }>;
    };
    expect(windows.map((w) => w.title)).toContain('Fixture Form');
    // By window title, percent-encoded as a client expands the template.
    const byTitle = (await readJson('axpage://app/Fixture%20Form/windows')) as { pid: number };
    expect(byTitle.pid).toBe(form.pid);
    await expect(
      session.client.readResource({ uri: 'axpage://app/no-such-app-xyz/tree' }),
    ).rejects.toThrow(/no-such-app-xyz.*Running:/s);
  });

  it("reads one element's attributes by ref, and a password's value never", async () => {
    const find = await session.call('ax_find', { app: form.pid, query: 'Password' });
    const candidates = find.structured.candidates as Array<{ ref: string; role: string }>;
    const field = candidates.find((c) => c.role === 'AXTextField');
    expect(field, JSON.stringify(candidates)).toBeDefined();
    const element = await readJson(`axpage://app/${form.pid}/element/${field!.ref}`);
    expect(element.ref).toBe(field!.ref);
    const attributes = element.attributes as { role: string; name: string; value?: string };
    expect(attributes.role).toBe(field!.role);
    expect(attributes.name).toBe('Password');
    expect(JSON.stringify(element)).not.toContain('hunter2-secret');
    await expect(
      session.client.readResource({ uri: `axpage://app/${form.pid}/element/x1` }),
    ).rejects.toThrow(/a ref looks like e42/);
    await expect(
      session.client.readResource({ uri: `axpage://app/${form.pid}/element/e999999` }),
    ).rejects.toThrow(/never issued/);
  });
});

describe('completions', () => {
  it('complete app names, window titles and refs', async () => {
    const calc = await session.launch('galculator', [], { env: { HOME: home } });
    try {
      expect(await complete('axpage://app/{name}/tree', 'name', 'galc')).toContain('galculator');
      expect(await complete('axpage://app/{name}/windows', 'name', 'Fixture F')).toContain(
        'Fixture Form',
      );
      expect(await complete('axpage://app/{name}/tree', 'name', 'zzz-nothing')).toEqual([]);
    } finally {
      await calc.stop();
    }
    const tree = await session.call('ax_get_tree', { app: form.pid });
    const refs = [...fs.readFileSync(tree.fields.file!, 'utf8').matchAll(/ (e\d+) /g)].map(
      (m) => m[1],
    );
    const offered = await complete('axpage://app/{name}/element/{ref}', 'ref', 'e', {
      name: String(form.pid),
    });
    // Every element the tree file lists is offered (the view also holds hidden ones).
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(offered).toContain(ref);
    const narrowed = await complete('axpage://app/{name}/element/{ref}', 'ref', refs[0], {
      name: String(form.pid),
    });
    expect(narrowed[0]).toBe(refs[0]);
    for (const ref of narrowed) expect(ref.startsWith(refs[0])).toBe(true);
  });
});

describe('subscriptions', () => {
  it('axpage://apps updates when an app registers and when it quits, and not while idle', async () => {
    await session.client.subscribeResource({ uri: 'axpage://apps' });
    const idle = count('axpage://apps');
    await sleep(QUIET_MS);
    expect(count('axpage://apps')).toBe(idle);

    const calc = await session.launch('galculator', [], { env: { HOME: home } });
    await nextUpdate('axpage://apps', idle);
    const { apps } = (await readJson('axpage://apps')) as { apps: Array<{ pid: number }> };
    expect(apps.map((a) => a.pid)).toContain(calc.pid);

    await sleep(1000); // the launch's burst is over
    const launched = count('axpage://apps');
    await calc.stop();
    await nextUpdate('axpage://apps', launched);
    const after = (await readJson('axpage://apps')) as { apps: Array<{ pid: number }> };
    expect(after.apps.map((a) => a.pid)).not.toContain(calc.pid);

    // Unsubscribed: the next app comes and goes unannounced.
    await session.client.unsubscribeResource({ uri: 'axpage://apps' });
    const unsubscribed = count('axpage://apps');
    const again = await session.launch('galculator', [], { env: { HOME: home } });
    await again.stop();
    await sleep(QUIET_MS);
    expect(count('axpage://apps')).toBe(unsubscribed);
  }, 90_000);

  it("an app's tree updates when the app changes, not after a read", async () => {
    const uri = `axpage://app/${form.pid}/tree`;
    await session.client.subscribeResource({ uri });
    // Reads (the resource itself and a read tool) walk the app: no update from that.
    await session.client.readResource({ uri });
    await session.call('ax_get_tree', { app: form.pid });
    await sleep(QUIET_MS);
    const quiet = count(uri);
    expect(quiet).toBe(0);

    const from = form.output!.events.length;
    const typed = await session.call('ax_type', { app: form.pid, query: 'Name', text: 'Ada' });
    expect(typed.isError, typed.text).toBe(false);
    // The fixture itself saw the change.
    await form.output!.waitForEvent((e) => e.event === 'changed' && e.value === 'Ada', { from });
    await nextUpdate(uri, quiet);
    expect(textOf(await session.client.readResource({ uri }))).toContain('"Ada"');
    await session.client.unsubscribeResource({ uri });
  }, 60_000);

  it('axpage://artifacts updates when a pair is written to the artifact dir', async () => {
    const uri = 'axpage://artifacts';
    await session.client.subscribeResource({ uri });
    await sleep(QUIET_MS);
    const quiet = count(uri);
    expect(quiet).toBe(0);
    const before = pairFiles().length;
    await session.call('ax_screenshot', { app: form.pid });
    expect(pairFiles().length).toBeGreaterThan(before);
    await nextUpdate(uri, quiet);
    await session.client.unsubscribeResource({ uri });
  }, 60_000);

  it('refuses a resource it cannot watch, saying which it can', async () => {
    await expect(session.client.subscribeResource({ uri: 'axpage://status' })).rejects.toThrow(
      /subscribable resources are axpage:\/\/apps/,
    );
  });
});

describe('prompts', () => {
  it('lists the flows, fills in the arguments and completes the app', async () => {
    const { prompts } = await session.client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual([
      'audit_accessibility',
      'fill_form',
      'test_app',
    ]);
    const got = await session.client.getPrompt({
      name: 'test_app',
      arguments: { app: 'Fixture Form', goal: 'submit the form with name Ada' },
    });
    const text = (got.messages[0].content as { text: string }).text;
    expect(text).toContain('"Fixture Form"');
    expect(text).toContain('submit the form with name Ada');
    expect(text.indexOf('ax_connect')).toBeLessThan(text.indexOf('ax_assert'));
    const audit = await session.client.getPrompt({
      name: 'audit_accessibility',
      arguments: { app: 'galculator' },
    });
    expect((audit.messages[0].content as { text: string }).text).toContain('ax_a11y_audit');

    const r = await session.client.complete({
      ref: { type: 'ref/prompt', name: 'fill_form' },
      argument: { name: 'app', value: 'Fixture' },
    });
    expect(r.completion.values).toContain('Fixture Form');
  });
});
