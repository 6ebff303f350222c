/**
 * ax_launch_app is no side door around the policy: a server in safe mode with shells,
 * python and galculator denied refuses launches that would run them through env, xargs,
 * find -exec, a desktop file or a symlink, before anything is spawned (marker files the
 * commands would create stay absent), and refuses to drive a denied binary started from a
 * link under another name (its real executable is what counts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';

let session: Session;
let dir: string;
/** A link to galculator under a harmless name. */
let link: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-launch-guard-'));
  link = path.join(dir, 'calc');
  fs.symlinkSync('/usr/bin/galculator', link);
  // An installed app of the user's whose Exec line runs a shell.
  const apps = path.join(dir, 'data', 'applications');
  fs.mkdirSync(apps, { recursive: true });
  fs.writeFileSync(
    path.join(apps, 'notes.desktop'),
    [
      '[Desktop Entry]',
      'Type=Application',
      'Name=Notes',
      `Exec=sh -c "touch ${path.join(dir, 'from-desktop')}"`,
    ].join('\n'),
  );
  session = await Session.start({
    serverEnv: {
      AXPAGE_MODE: 'safe',
      AXPAGE_DENY_APPS: 'sh,dash,bash,python3*,galculator',
      // Allowed by name, so only the chain and wrapper checks can refuse them.
      AXPAGE_LAUNCH_ALLOW: 'env,xargs,find,calc',
      XDG_DATA_HOME: path.join(dir, 'data'),
    },
  });
});

afterAll(async () => {
  await session?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Launch logs the server opened: one is created just before anything is spawned. */
function launchLogs(): string[] {
  return fs.readdirSync(session.artifactDir).filter((f) => f.startsWith('launch-'));
}

describe('launches in safe mode', () => {
  it('refuses commands that would run a denied shell through env, xargs or find -exec, before they run', async () => {
    const cases: Array<[string, string[], RegExp]> = [
      [
        'env',
        ['/usr/bin/env', 'sh', '-c', 'touch MARK'],
        /sh \(env runs sh\) is blocked .*deny list: 'sh'/,
      ],
      ['xargs', ['xargs', 'sh', '-c', 'touch MARK'], /runs another command through xargs/],
      [
        'find',
        ['find', '/', '-maxdepth', '0', '-exec', 'sh', '-c', 'touch MARK', ';'],
        /through find/,
      ],
      [
        'env-i',
        ['/usr/bin/env', '-i', 'PATH=/bin', 'dash', '-c', 'touch MARK'],
        /deny list: 'dash'/,
      ],
    ];
    for (const [name, command, why] of cases) {
      const marker = path.join(dir, `ran-${name}`);
      const argv = command.map((a) => a.replace('MARK', marker));
      const r = await session.call('ax_launch_app', { command: argv });
      expect(r.isError, r.text).toBe(true);
      expect(r.structured.error_code, r.text).toBe('blocked');
      expect(r.text).toMatch(why);
      expect(r.text).toMatch(/nothing was started/);
      // Had it been spawned, the call would have waited for it to exit: the marker would be there.
      expect(fs.existsSync(marker), `${name} ran`).toBe(false);
    }
    expect(launchLogs()).toEqual([]);
  });

  it('refuses an installed app whose Exec line runs a denied shell', async () => {
    const r = await session.call('ax_launch_app', { desktop: 'notes' });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(/deny list: 'sh'.*nothing was started/);
    expect(fs.existsSync(path.join(dir, 'from-desktop'))).toBe(false);
  });

  it('refuses a link to a denied binary under an allowed name, and starts nothing', async () => {
    const r = await session.call('ax_launch_app', { command: [link] });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(/galculator \(calc runs galculator\) is blocked .*nothing was started/);
    expect(launchLogs()).toEqual([]);
  });

  it('refuses a command whose real executable is not on the launch allow list', async () => {
    const r = await session.call('ax_launch_app', { command: ['gtk3-widget-factory'] });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(
      /safe mode, which launches installed apps only.*gtk3-widget-factory is not on its launch allow list/,
    );
  });

  it('still launches an installed app menus show, by desktop name', async () => {
    const r = await session.call('ax_launch_app', { desktop: 'org.gtk.WidgetFactory4' });
    expect(r.isError, r.text).toBe(false);
    const pid = (r.structured.launched as { app_pid: number }).app_pid;
    expect(fs.readlinkSync(`/proc/${pid}/exe`)).toMatch(/gtk4-widget-factory$/);
    await session.call('ax_quit_app', { app: pid, force: true });
  });

  it('refuses an installed entry menus hide (NoDisplay=true): a helper, not an app', async () => {
    const r = await session.call('ax_launch_app', { desktop: 'gtk3-widget-factory' });
    expect(r.isError, r.text).toBe(true);
    expect(r.structured.error_code).toBe('blocked');
    expect(r.text).toMatch(/not an app shown to people \(.*NoDisplay=true\).*nothing was started/);
    // Nothing runs it: no process's executable is that program.
    const started = fs.readdirSync('/proc').filter((e) => {
      try {
        return (
          /^\d+$/.test(e) && fs.readlinkSync(`/proc/${e}/exe`).endsWith('/gtk3-widget-factory')
        );
      } catch {
        return false;
      }
    });
    expect(started).toEqual([]);
  });
});

describe('driving', () => {
  let calc: LaunchedApp;

  beforeAll(async () => {
    // Started outside the server, from the link: it runs as "calc".
    calc = await session.launch(link, [], { name: 'calc' });
  });

  it('refuses a denied binary started from a link, by its real executable', async () => {
    expect(fs.readlinkSync(`/proc/${calc.pid}/exe`)).toBe('/usr/bin/galculator');
    for (const [tool, args] of [
      ['ax_get_tree', {}],
      ['ax_click', { query: 'button:7' }],
    ] as const) {
      const r = await session.call(tool, { app: calc.pid, ...args });
      expect(r.isError, r.text).toBe(true);
      // Denied by its real executable, and answered as a pid no app runs as: the refusal
      // names neither it nor the list, nor tells that it runs.
      expect(r.structured.error_code).toBe('app_not_found');
      expect(r.fields.error).toMatch(new RegExp(`^no accessible app has pid ${calc.pid}\\. `));
      expect(r.text).not.toMatch(/galculator|blocked/);
      expect(r.text).not.toMatch(/^file:/m);
    }
  });
});

/**
 * A denied app is known by what it is, not by what it is called: with zenity denied (full
 * mode, and safe mode allowing every command), launching it through the dynamic loader,
 * as a copy (even one with bytes appended), as a hard link or from a desktop entry whose Exec is the copy starts nothing;
 * a copy, a padded copy or a loader-run zenity started outside is not driven, and is answered as
 * a pid no app runs as.
 */
describe.each(['full', 'safe'] as const)('zenity denied, %s mode', (mode) => {
  let server: Session;
  let zdir: string;
  let copy: string;
  let hard: string;
  let padded: string;

  beforeAll(async () => {
    zdir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-identity-guard-'));
    copy = path.join(zdir, 'zcopy');
    hard = path.join(zdir, 'zhard');
    fs.copyFileSync('/usr/bin/zenity', copy);
    fs.chmodSync(copy, 0o755);
    fs.linkSync('/usr/bin/zenity', hard);
    // One byte appended: other size and SHA-256, same ELF build-id.
    padded = path.join(zdir, 'zpad');
    fs.writeFileSync(
      padded,
      Buffer.concat([fs.readFileSync('/usr/bin/zenity'), Buffer.from([0])]),
      {
        mode: 0o755,
      },
    );
    const apps = path.join(zdir, 'data', 'applications');
    fs.mkdirSync(apps, { recursive: true });
    fs.writeFileSync(
      path.join(apps, 'zview.desktop'),
      ['[Desktop Entry]', 'Type=Application', 'Name=Z View', `Exec=${copy} --entry`].join('\n'),
    );
    server = await Session.start({
      serverEnv: {
        AXPAGE_MODE: mode,
        AXPAGE_DENY_APPS: 'zenity',
        AXPAGE_LAUNCH_ALLOW: '*',
        XDG_DATA_HOME: path.join(zdir, 'data'),
      },
    });
  });

  afterAll(async () => {
    await server?.close();
    if (zdir) fs.rmSync(zdir, { recursive: true, force: true });
  });

  it('refuses to launch it through the dynamic loader, a copy, a hard link or a desktop entry', async () => {
    const loader = '/lib64/ld-linux-x86-64.so.2';
    const cases: Array<Record<string, unknown>> = [
      { command: [loader, '--argv0', 'zz', '/usr/bin/zenity', '--entry'] },
      { command: [loader, '/usr/bin/zenity', '--entry'] },
      { command: [copy, '--entry'] },
      { command: [hard, '--entry'] },
      { command: [padded, '--entry'] },
      { desktop: 'zview' },
    ];
    for (const request of cases) {
      const r = await server.call('ax_launch_app', request);
      expect(r.isError, `${JSON.stringify(request)}: ${r.text}`).toBe(true);
      expect(r.structured.error_code, r.text).toBe('blocked');
      expect(r.text).toMatch(/nothing was started/);
    }
    expect(fs.readdirSync(server.artifactDir).filter((f) => f.startsWith('launch-'))).toEqual([]);
  });

  it('refuses to drive a copy, a padded copy or a loader-run zenity, answering as for a pid no app runs as', async () => {
    const copied = await server.launch(copy, ['--entry', '--title', 'Copy Qz'], { name: 'zc' });
    const loaded = await server.launch(
      '/lib64/ld-linux-x86-64.so.2',
      ['--argv0', 'zz', '/usr/bin/zenity', '--entry', '--title', 'Loaded Qz'],
      { name: 'zl' },
    );
    const pad = await server.launch(padded, ['--entry', '--title', 'Pad Qz'], { name: 'zp' });
    for (const app of [copied, loaded, pad]) {
      const r = await server.call('ax_get_tree', { app: app.pid });
      expect(r.isError, r.text).toBe(true);
      // Answered as a pid no app runs as: nothing tells that it runs, or what it is.
      expect(r.structured.error_code).toBe('app_not_found');
      expect(r.fields.error).toMatch(new RegExp(`^no accessible app has pid ${app.pid}\\. `));
      expect(r.text).not.toMatch(/zenity|Qz|blocked/);
    }
    const listed = await server.call('ax_list_apps', {});
    expect(listed.structured.left_out).toBe(3);
    const access = await server.call('ax_is_accessible', {});
    const details = access.structured.details as Record<string, unknown>;
    expect(details.left_out).toBe(3);
    // Counts only the apps it may touch, as ax_list_apps lists them.
    expect(details.apps).toBe((listed.structured.apps as unknown[]).length);
  });
});
