import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { AppDirectory } from '../../src/pipeline/apps.js';
import { quietCall } from '../../src/pipeline/notify.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import { app, axRejection, dataDesktop, win } from './helpers/pipeline-fixtures.js';

/** A desktop with a text editor, two terminals, a calculator and a settings dialog. */
function desktop() {
  return dataDesktop({
    apps: [
      app(101, 'gedit', { active: true }),
      app(202, 'gnome-terminal'),
      app(203, 'gnome-terminal'),
      app(304, 'gnome-calculator'),
      app(405, 'zenity', { windows: 2 }),
    ],
    windows: [
      win(101, 'notes.txt - gedit', true),
      win(202, 'build: ~/src'),
      win(203, 'logs: /var/log'),
      win(304, 'Calculator'),
      win(405, 'Preferences'),
      win(405, 'About zenity'),
      // An X window whose owner is not on the accessibility bus.
      win(999, 'xterm'),
    ],
    frontmost: { pid: 101, windowTitle: 'notes.txt - gedit' },
  });
}

describe('AppDirectory.resolve: an app that is not responding', () => {
  const frozen = () =>
    dataDesktop({
      apps: [app(101, 'gedit', { active: true }), app(202, 'toggles', { responding: false })],
      windows: [win(101, 'notes.txt - gedit', true), win(202, 'Fixture Toggles')],
      frontmost: { pid: 101, windowTitle: 'notes.txt - gedit' },
    });

  it('is refused by pid, name and window title with app_not_responding and a next step', async () => {
    const dir = new AppDirectory();
    for (const arg of [202, 'toggles', 'Fixture Toggles']) {
      const err = await axRejection(dir.resolve(frozen(), arg), 'app_not_responding');
      expect(err.message).toMatch(/toggles \(pid 202\) is not responding: .*busy or hung/);
      expect(err.message).not.toMatch(/exited/);
      expect(err.hint).toMatch(/Wait and try again/);
    }
  });

  it('says when its process is stopped, and how to continue it', async () => {
    const stopped = dataDesktop({
      apps: [app(101, 'gedit'), app(202, 'toggles', { responding: false, stopped: true })],
    });
    const err = await axRejection(new AppDirectory().resolve(stopped, 202), 'app_not_responding');
    expect(err.message).toMatch(/pid 202\) is not responding: its process is stopped/);
    expect(err.hint).toMatch(/kill -CONT 202/);
    expect(err.details).toMatchObject({ pid: 202, stopped: true });
  });

  it('does not stand in the way of the other apps', async () => {
    const dir = new AppDirectory();
    expect((await dir.resolve(frozen(), 'gedit')).pid).toBe(101);
    expect((await dir.resolve(frozen(), undefined)).pid).toBe(101);
  });
});

describe('AppDirectory.resolve', () => {
  it('resolves a pid given as a number or as digits', async () => {
    const dir = new AppDirectory();
    const byNumber = await dir.resolve(desktop(), 304);
    expect(byNumber).toEqual({
      pid: 304,
      name: 'gnome-calculator',
      windows: 1,
      active: false,
      matchedBy: 'pid',
    });
    expect((await dir.resolve(desktop(), ' 203 ')).pid).toBe(203);
    expect((await dir.resolve(desktop(), '203')).matchedBy).toBe('pid');
  });

  it('reports an unknown pid with the running apps', async () => {
    const err = await axRejection(new AppDirectory().resolve(desktop(), 77), 'app_not_found');
    expect(err.message).toBe('no accessible app has pid 77');
    expect(err.hint).toContain('gedit (101)');
    expect(err.hint).toContain('gnome-calculator (304)');
    expect(err.details?.apps).toHaveLength(5);
  });

  it('resolves an alias set by ax_connect, case-insensitively, before names', async () => {
    const dir = new AppDirectory();
    dir.setAlias('Build', 202);
    // "gedit" would match by name; an alias of that name wins.
    dir.setAlias('gedit', 304);
    expect(await dir.resolve(desktop(), 'build')).toMatchObject({ pid: 202, matchedBy: 'alias' });
    expect(await dir.resolve(desktop(), 'BUILD')).toMatchObject({ pid: 202, matchedBy: 'alias' });
    expect(await dir.resolve(desktop(), 'gedit')).toMatchObject({ pid: 304, matchedBy: 'alias' });
    expect(dir.aliasOf(202)).toBe('build');
    expect(dir.aliasOf(101)).toBeUndefined();
  });

  it('says when an alias points at an app that has exited', async () => {
    const dir = new AppDirectory();
    dir.setAlias('old', 55);
    const err = await axRejection(dir.resolve(desktop(), 'old'), 'app_not_found');
    expect(err.message).toBe(`alias 'old' pointed at pid 55, which is no longer running`);
    expect(err.hint).toMatch(/ax_connect/);
  });

  it('resolves an exact name, case-insensitively', async () => {
    const d = desktop();
    expect(await new AppDirectory().resolve(d, 'Gedit')).toMatchObject({
      pid: 101,
      matchedBy: 'name',
    });
    // An exact name needs no window lookup.
    expect(d.calls).toEqual(['listApps']);
  });

  it('reports two apps with the same name as ambiguous, listing both', async () => {
    const err = await axRejection(
      new AppDirectory().resolve(desktop(), 'gnome-terminal'),
      'app_ambiguous',
    );
    expect(err.message).toBe(
      `'gnome-terminal' matches 2 apps: gnome-terminal (pid 202, window "build: ~/src"), gnome-terminal (pid 203, window "logs: /var/log")`,
    );
    expect(err.hint).toMatch(/^Pass the pid \(app: 202\), or a window title only one of them has/);
    expect(err.details).toEqual({
      candidates: [
        { name: 'gnome-terminal', pid: 202, windows: ['build: ~/src'] },
        { name: 'gnome-terminal', pid: 203, windows: ['logs: /var/log'] },
      ],
    });
    // Only the exact namesakes are candidates, not names that contain the text.
    const withServer = dataDesktop({
      apps: [app(1, 'gnome-terminal-server'), app(2, 'gnome-terminal'), app(3, 'Gnome-Terminal')],
    });
    const exact = await axRejection(
      new AppDirectory().resolve(withServer, 'gnome-terminal'),
      'app_ambiguous',
    );
    expect(exact.details).toEqual({
      candidates: [
        { name: 'gnome-terminal', pid: 2, windows: [] },
        { name: 'Gnome-Terminal', pid: 3, windows: [] },
      ],
    });
    expect(exact.message).toContain('gnome-terminal (pid 2, no windows)');
  });

  it('resolves a window title, exact before contained', async () => {
    const dir = new AppDirectory();
    expect(await dir.resolve(desktop(), 'preferences')).toMatchObject({
      pid: 405,
      name: 'zenity',
      matchedBy: 'window-title',
    });
    expect(await dir.resolve(desktop(), 'logs: /var/log')).toMatchObject({
      pid: 203,
      matchedBy: 'window-title',
    });
    // Part of one window's title: that window's app.
    expect(await dir.resolve(desktop(), 'notes.txt')).toMatchObject({
      pid: 101,
      matchedBy: 'window-title',
    });
    expect(await dir.resolve(desktop(), '~/src')).toMatchObject({
      pid: 202,
      matchedBy: 'window-title',
    });
  });

  it('resolves part of a name when only one app has it', async () => {
    expect(await new AppDirectory().resolve(desktop(), 'calc')).toMatchObject({
      pid: 304,
      name: 'gnome-calculator',
      matchedBy: 'name-contains',
    });
  });

  it('prefers an exact window title over part of an app name', async () => {
    // "Calculator" is part of gnome-calculator's name and exactly a window title: same app.
    expect(await new AppDirectory().resolve(desktop(), 'Calculator')).toMatchObject({
      pid: 304,
      matchedBy: 'window-title',
    });
  });

  it('reports part of a name shared by several apps as ambiguous', async () => {
    const err = await axRejection(new AppDirectory().resolve(desktop(), 'gnome'), 'app_ambiguous');
    expect(err.message).toMatch(/^'gnome' matches 3 apps: /);
    for (const pid of [202, 203, 304]) expect(err.message).toContain(`(pid ${pid}, window `);
    expect(err.message).not.toContain('gedit');
  });

  it('reports part of several window titles of different apps as ambiguous', async () => {
    // ":" is in both terminals' titles only.
    const err = await axRejection(new AppDirectory().resolve(desktop(), ':'), 'app_ambiguous');
    expect(err.details).toEqual({
      candidates: [
        { name: 'gnome-terminal', pid: 202, windows: ['build: ~/src'] },
        { name: 'gnome-terminal', pid: 203, windows: ['logs: /var/log'] },
      ],
    });
  });

  it('an exact name wins over names that contain it; two that contain it are ambiguous', async () => {
    const d = dataDesktop({
      apps: [app(1, 'galculator'), app(2, 'gnome-calculator'), app(3, 'calc', { windows: 3 })],
      windows: [win(1, 'galculator'), win(2, 'Calculator'), win(3, 'a'), win(3, 'b'), win(3, 'c')],
    });
    expect(await new AppDirectory().resolve(d, 'CALC')).toMatchObject({
      pid: 3,
      matchedBy: 'name',
    });
    const err = await axRejection(new AppDirectory().resolve(d, 'alcul'), 'app_ambiguous');
    expect(err.message).toBe(
      `'alcul' matches 2 apps: galculator (pid 1, window "galculator"), gnome-calculator (pid 2, window "Calculator")`,
    );
    // Many windows: the first two titles, then a count.
    const three = await axRejection(
      new AppDirectory().resolve(
        dataDesktop({
          apps: [app(3, 'calc', { windows: 3 }), app(4, 'calc')],
          windows: [win(3, 'a'), win(3, 'b'), win(3, 'c')],
        }),
        'calc',
      ),
      'app_ambiguous',
    );
    expect(three.message).toContain(
      'calc (pid 3, windows "a", "b" +1 more), calc (pid 4, no windows)',
    );
  });

  it('reports one window title shared by two apps as ambiguous', async () => {
    const d = dataDesktop({
      apps: [app(1, 'mousepad'), app(2, 'gedit')],
      windows: [win(1, 'Untitled'), win(2, 'Untitled')],
    });
    const err = await axRejection(new AppDirectory().resolve(d, 'untitled'), 'app_ambiguous');
    expect(err.details).toEqual({
      candidates: [
        { name: 'mousepad', pid: 1, windows: ['Untitled'] },
        { name: 'gedit', pid: 2, windows: ['Untitled'] },
      ],
    });
  });

  it('does not count windows of apps without accessibility as candidates', async () => {
    const d = dataDesktop({
      apps: [app(1, 'gedit'), app(2, 'evince')],
      windows: [win(1, 'Report draft'), win(999, 'Report viewer')],
    });
    // Two titles contain "report", but only gedit's window belongs to an accessible app.
    expect(await new AppDirectory().resolve(d, 'report')).toMatchObject({
      pid: 1,
      matchedBy: 'window-title',
    });
    expect(await new AppDirectory().resolve(d, 'report draft')).toMatchObject({ pid: 1 });
    // The same exact title on an accessible and a foreign window: the accessible one.
    const twins = dataDesktop({
      apps: [app(1, 'gedit')],
      windows: [win(999, 'Report'), win(1, 'Report')],
    });
    expect(await new AppDirectory().resolve(twins, 'Report')).toMatchObject({ pid: 1 });
    // Only foreign windows contain it: say why they cannot be used, not "matches 0 apps".
    const foreign = dataDesktop({
      apps: [app(1, 'gedit')],
      windows: [win(998, 'Report one'), win(999, 'Report two')],
    });
    const err = await axRejection(new AppDirectory().resolve(foreign, 'report'), 'app_not_found');
    expect(err.message).toMatch(/belongs to pid 998, which does not expose accessibility/);
  });

  it('says a window belongs to an app without accessibility', async () => {
    const err = await axRejection(new AppDirectory().resolve(desktop(), 'xterm'), 'app_not_found');
    expect(err.message).toBe(
      `the window 'xterm' belongs to pid 999, which does not expose accessibility`,
    );
    expect(err.hint).toMatch(/NO_AT_BRIDGE/);
  });

  it('reports an unknown name with the running apps', async () => {
    const err = await axRejection(
      new AppDirectory().resolve(desktop(), 'firefox'),
      'app_not_found',
    );
    expect(err.message).toBe(`no running app matches 'firefox' by name, alias or window title`);
    expect(err.hint).toBe(
      'Running: gedit (101), gnome-terminal (202), gnome-terminal (203), gnome-calculator (304), zenity (405). Call ax_list_apps for pids',
    );
    expect(err.details?.apps).toEqual([
      { name: 'gedit', pid: 101 },
      { name: 'gnome-terminal', pid: 202 },
      { name: 'gnome-terminal', pid: 203 },
      { name: 'gnome-calculator', pid: 304 },
      { name: 'zenity', pid: 405 },
    ]);
  });

  it('shortens a long list of running apps', async () => {
    const many = dataDesktop({
      apps: Array.from({ length: 11 }, (_, k) => app(10 + k, `app${k}`)),
    });
    const err = await axRejection(new AppDirectory().resolve(many, 'nothing'), 'app_not_found');
    expect(err.hint).toContain('app7 (17) and 3 more');
    expect(err.hint).not.toContain('app8');
    const none = dataDesktop({ apps: [] });
    const empty = await axRejection(new AppDirectory().resolve(none, 'x'), 'app_not_found');
    expect(empty.hint).toMatch(/^Running: none\./);
  });

  it('takes the frontmost app when no app is given', async () => {
    const dir = new AppDirectory();
    for (const none of [undefined, '', '   ']) {
      expect(await dir.resolve(desktop(), none)).toMatchObject({
        pid: 101,
        matchedBy: 'frontmost',
      });
    }
  });

  it('says so when no app is given and nothing accessible is frontmost', async () => {
    const nothing = dataDesktop({ apps: [app(1, 'gedit')], frontmost: null });
    const err = await axRejection(new AppDirectory().resolve(nothing, undefined), 'bad_argument');
    expect(err.message).toBe('no app given and no app is frontmost');
    expect(err.hint).toBe('Pass app (a name, pid or alias). Running: gedit (1)');
    // The frontmost window's owner is not on the accessibility bus.
    const foreign = dataDesktop({
      apps: [app(1, 'gedit')],
      frontmost: { pid: 999, windowTitle: 'xterm' },
    });
    await axRejection(new AppDirectory().resolve(foreign, undefined), 'bad_argument');
  });
});

describe('AppDirectory.resolve: a pid the backend knows', () => {
  /** The data desktop, with a per-pid lookup that counts its use and the full listing's. */
  function counting(byPid: (pid: number) => ReturnType<typeof app> | null) {
    const d = desktop();
    const calls = { list: 0, one: 0 };
    const listApps = d.listApps.bind(d);
    d.listApps = () => {
      calls.list++;
      return listApps();
    };
    d.appByPid = async (pid: number) => {
      calls.one++;
      return byPid(pid);
    };
    return { d, calls };
  }

  it('takes that app alone, without listing every app', async () => {
    const { d, calls } = counting((pid) => (pid === 304 ? app(304, 'gnome-calculator') : null));
    const hit = await new AppDirectory().resolve(d, 304);
    expect(hit).toMatchObject({ pid: 304, name: 'gnome-calculator', matchedBy: 'pid' });
    expect(calls).toEqual({ list: 0, one: 1 });
    expect((await new AppDirectory().resolve(d, ' 304 ')).pid).toBe(304);
  });

  it('lists every app only when the backend cannot tell', async () => {
    const unknown = counting(() => null);
    expect((await new AppDirectory().resolve(unknown.d, 202)).name).toBe('gnome-terminal');
    expect(unknown.calls.list).toBe(1);
    await axRejection(new AppDirectory().resolve(unknown.d, 777), 'app_not_found');
  });

  it('refuses an app its liveness check found not responding, without listing the others', async () => {
    const hung = counting((pid) => app(pid, 'gnome-terminal', { responding: false }));
    await axRejection(new AppDirectory().resolve(hung.d, 202), 'app_not_responding');
    expect(hung.calls).toEqual({ list: 0, one: 1 });
  });
});

describe('AppDirectory.known: a pid the backend already talks to', () => {
  function knowing(byPid: (pid: number) => { pid: number; name: string } | null) {
    const d = desktop();
    const asked: number[] = [];
    d.knownApp = async (pid: number) => {
      asked.push(pid);
      return byPid(pid);
    };
    return { d, asked };
  }

  it('takes a pid argument at its word, with the name the backend holds', async () => {
    const { d, asked } = knowing((pid) => (pid === 304 ? { pid, name: 'gnome-calculator' } : null));
    const dir = new AppDirectory();
    expect(await dir.known(d, 304)).toEqual({ pid: 304, name: 'gnome-calculator' });
    expect(await dir.known(d, ' 304 ')).toEqual({ pid: 304, name: 'gnome-calculator' });
    expect(asked).toEqual([304, 304]);
    expect(d.calls).toEqual([]); // nothing listed, nothing read
  });

  it('knows nothing of names, of pids the backend does not hold, or without the backend call', async () => {
    const { d, asked } = knowing(() => null);
    const dir = new AppDirectory();
    expect(await dir.known(d, 202)).toBeUndefined();
    expect(await dir.known(d, 'gnome-calculator')).toBeUndefined();
    expect(await dir.known(d, undefined)).toBeUndefined();
    expect(asked).toEqual([202]);
    expect(await dir.known(desktop(), 304)).toBeUndefined(); // a backend without knownApp
  });
});

describe('Pipeline: a known pid still passes the policy', () => {
  it('answers a denied app named by a known pid as not there, and reads nothing of it', async () => {
    const d = desktop();
    d.knownApp = async (pid: number) => (pid === 101 ? { pid, name: 'gedit' } : null);
    let walked = 0;
    d.snapshot = () => {
      walked++;
      return Promise.reject(new Error('not to be walked'));
    };
    const config = { ...DEFAULT_CONFIG, policy: { ...DEFAULT_CONFIG.policy, denyApps: ['gedit'] } };
    const pipeline = new Pipeline(async () => d, config);
    const read = (app: number) =>
      pipeline.observe(quietCall('ax_get_tree'), { app, describe: () => 'read' });
    const refused = await axRejection(read(101), 'app_not_found');
    // The words a pid that runs no app gets: nothing says pid 101 runs, or is denied.
    const unknown = await axRejection(read(777), 'app_not_found');
    expect(refused.message).toBe('no accessible app has pid 101');
    expect(refused.message.replace('101', 'N')).toBe(unknown.message.replace('777', 'N'));
    expect(refused.hint).toBe(unknown.hint);
    expect(refused.hint).not.toMatch(/gedit/);
    expect(walked).toBe(0);
    expect(d.calls.filter((c) => c !== 'listApps')).toEqual([]);
  });

  it('answers a denied app named by its name as an app that does not run', async () => {
    const d = desktop();
    const config = { ...DEFAULT_CONFIG, policy: { ...DEFAULT_CONFIG.policy, denyApps: ['gedit'] } };
    const pipeline = new Pipeline(async () => d, config);
    const read = (app: string) =>
      pipeline.observe(quietCall('ax_get_tree'), { app, describe: () => 'read' });
    for (const named of ['gedit', 'notes.txt - gedit']) {
      const refused = await axRejection(read(named), 'app_not_found');
      const unknown = await axRejection(read('kwrite'), 'app_not_found');
      expect(refused.message.replace(named, 'X')).toBe(unknown.message.replace('kwrite', 'X'));
      expect(refused.hint).toBe(unknown.hint);
      expect(refused.hint).not.toMatch(/gedit|101/);
    }
  });
});
