/**
 * Desktop entries and their lookup, on files written into a temp XDG tree: Exec field
 * codes and quoting per the Desktop Entry spec, id and name matching, Hidden, NoDisplay
 * and TryExec, and the data dirs' order.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ExecError,
  execArgv,
  notInMenus,
  parseDesktopEntry,
} from '../../src/platform/linux/launch-entry.js';
import {
  applicationDirs,
  findDesktopEntry,
  LookupError,
} from '../../src/platform/linux/launch-lookup.js';
import { launchEnv, planLaunch } from '../../src/platform/linux/launch.js';
import { PlatformError } from '../../src/errors.js';

describe('parseDesktopEntry', () => {
  it('reads the main group only, first occurrence wins, escapes undone', () => {
    const e = parseDesktopEntry(
      [
        '# comment',
        '[Desktop Entry]',
        'Type=Application',
        'Name=Text\\sEditor',
        'Name[de]=Texteditor',
        'Exec=mousepad %U',
        'Exec=ignored',
        'NoDisplay=true',
        'StartupWMClass=Mousepad',
        '[Desktop Action new-window]',
        'Exec=mousepad --new',
        'Hidden=true',
      ].join('\n'),
    );
    expect(e).toMatchObject({
      type: 'Application',
      name: 'Text Editor',
      exec: 'mousepad %U',
      noDisplay: true,
      hidden: false,
      startupWMClass: 'Mousepad',
    });
  });

  it('is undefined for a file without a [Desktop Entry] group', () => {
    expect(parseDesktopEntry('[Other]\nExec=x\n')).toBeUndefined();
  });
});

describe('notInMenus', () => {
  const entry = (lines: string[]) =>
    parseDesktopEntry(['[Desktop Entry]', 'Type=Application', 'Exec=x', ...lines].join('\n'))!;

  it('says why an entry is not one shown to people: NoDisplay, Hidden, OnlyShowIn, NotShowIn', () => {
    // mutter.desktop and ktelnetservice5.desktop as Debian ships them.
    expect(notInMenus(entry(['Name=Mutter', 'Exec=mutter', 'NoDisplay=true']), [])).toMatch(
      /NoDisplay/,
    );
    expect(notInMenus(entry(['Name=Gone', 'Hidden=true']), ['GNOME'])).toMatch(/Hidden/);
    expect(notInMenus(entry(['Name=K', 'OnlyShowIn=KDE;']), ['GNOME'])).toMatch(
      /OnlyShowIn=KDE; .*GNOME/,
    );
    // No desktop named (a headless session): an entry for some desktops only is not shown.
    expect(notInMenus(entry(['Name=K', 'OnlyShowIn=KDE;']), [])).toMatch(/OnlyShowIn/);
    expect(notInMenus(entry(['Name=G', 'NotShowIn=GNOME;XFCE;']), ['ubuntu', 'GNOME'])).toMatch(
      /NotShowIn/,
    );
  });

  it('passes an entry shown in menus', () => {
    expect(notInMenus(entry(['Name=Galculator']), [])).toBeUndefined();
    expect(notInMenus(entry(['Name=K', 'OnlyShowIn=KDE;XFCE;']), ['XFCE'])).toBeUndefined();
    expect(notInMenus(entry(['Name=G', 'NotShowIn=KDE;']), ['GNOME'])).toBeUndefined();
    expect(notInMenus(entry(['Name=N', 'NoDisplay=false']), [])).toBeUndefined();
  });
});

describe('execArgv', () => {
  const ctx = { name: 'My App', icon: 'my-icon', file: '/apps/my.desktop' };

  it('drops file and URL codes that stand alone, with their argument', () => {
    expect(execArgv('galculator', ctx)).toEqual(['galculator']);
    expect(execArgv('mousepad %U', ctx)).toEqual(['mousepad']);
    expect(execArgv('app %f --x %F %u', ctx)).toEqual(['app', '--x']);
  });

  it('expands %i to two arguments, %c to the name, %k to the file, %% to %', () => {
    expect(execArgv('app %i --title=%c %k 100%%', ctx)).toEqual([
      'app',
      '--icon',
      'my-icon',
      '--title=My App',
      '/apps/my.desktop',
      '100%',
    ]);
    expect(execArgv('app %i', { name: 'x' })).toEqual(['app']);
  });

  it('keeps quoted arguments whole and undoes their escapes', () => {
    expect(execArgv('"/opt/My Apps/run" "a \\"b\\" \\$HOME \\\\ \\`x\\`" plain', ctx)).toEqual([
      '/opt/My Apps/run',
      'a "b" $HOME \\ `x`',
      'plain',
    ]);
  });

  it('removes deprecated codes and refuses unknown ones and broken quoting', () => {
    expect(execArgv('app %d %n %m', ctx)).toEqual(['app']);
    expect(() => execArgv('app %z', ctx)).toThrow(ExecError);
    expect(() => execArgv('app 50%', ctx)).toThrow(/lone %/);
    expect(() => execArgv('"app', ctx)).toThrow(/unclosed quote/);
    expect(() => execArgv('%U', ctx)).toThrow(/names no program/);
  });
});

describe('findDesktopEntry', () => {
  let root: string;
  let env: NodeJS.ProcessEnv;
  const write = (dir: string, id: string, lines: string[]) => {
    const file = path.join(root, dir, 'applications', ...id.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, ['[Desktop Entry]', 'Type=Application', ...lines].join('\n'));
  };

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-launch-unit-'));
    const bin = path.join(root, 'bin');
    fs.mkdirSync(bin);
    for (const p of ['galculator', 'mousepad', 'calc2', 'helper', 'helperd']) {
      fs.writeFileSync(path.join(bin, p), '#!/bin/sh\n', { mode: 0o755 });
    }
    env = {
      HOME: path.join(root, 'home'),
      XDG_DATA_HOME: path.join(root, 'user'),
      XDG_DATA_DIRS: `${path.join(root, 'sys1')}:${path.join(root, 'sys2')}`,
      PATH: bin,
    };
    write('sys2', 'galculator.desktop', ['Name=Galculator', 'Exec=galculator']);
    write('sys1', 'org.xfce.mousepad.desktop', ['Name=Mousepad', 'Exec=mousepad %U']);
    // The earlier dir wins for the same id.
    write('sys1', 'org.example.Calc.desktop', ['Name=Calc One', 'Exec=calc2 --one']);
    write('sys2', 'org.example.Calc.desktop', ['Name=Calc Two', 'Exec=calc2 --two']);
    // A user's Hidden entry deletes the system one of the same id.
    write('user', 'gone.desktop', ['Name=Gone', 'Hidden=true', 'Exec=galculator']);
    write('sys2', 'gone.desktop', ['Name=Gone', 'Exec=galculator']);
    write('sys2', 'org.x.helperd.desktop', ['Name=Helper', 'NoDisplay=true', 'Exec=helperd']);
    write('sys2', 'missing.desktop', ['Name=Missing', 'TryExec=not-installed', 'Exec=helper']);
    write('sys2', 'vendor/tool.desktop', ['Name=Vendor Tool', 'Exec=calc2 --tool']);
    write('sys2', 'link.desktop', ['Name=Link', 'Type=Link', 'URL=http://x']);
    write('sys2', 'twin-a.desktop', ['Name=Twin', 'Exec=calc2 a']);
    write('sys2', 'twin-b.desktop', ['Name=Twin', 'Exec=calc2 b']);
  });

  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('looks in XDG_DATA_HOME, then XDG_DATA_DIRS, each applications/', () => {
    expect(applicationDirs(env)).toEqual([
      path.join(root, 'user', 'applications'),
      path.join(root, 'sys1', 'applications'),
      path.join(root, 'sys2', 'applications'),
    ]);
    expect(applicationDirs({ HOME: '/h' })).toEqual([
      '/h/.local/share/applications',
      '/usr/local/share/applications',
      '/usr/share/applications',
    ]);
  });

  it('finds an app by id (with or without .desktop, any case), by Name, by last id part, by program', () => {
    for (const q of ['galculator', 'galculator.desktop', 'GALCULATOR', 'Galculator']) {
      expect(findDesktopEntry(q, env).id).toBe('galculator');
    }
    for (const q of ['org.xfce.mousepad', 'Mousepad', 'mousepad']) {
      const found = findDesktopEntry(q, env);
      expect(found.id).toBe('org.xfce.mousepad');
      expect(found.argv).toEqual(['mousepad']);
    }
    expect(findDesktopEntry('Vendor Tool', env).id).toBe('vendor-tool');
  });

  it('takes the entry of the earliest data dir for one id', () => {
    const found = findDesktopEntry('org.example.Calc', env);
    expect(found.argv).toEqual(['calc2', '--one']);
    expect(found.file).toContain(path.join('sys1', 'applications'));
  });

  it('respects Hidden, NoDisplay (exact id only), TryExec and Type', () => {
    expect(() => findDesktopEntry('gone', env)).toThrow(LookupError);
    expect(findDesktopEntry('org.x.helperd', env).id).toBe('org.x.helperd');
    expect(() => findDesktopEntry('Helper', env)).toThrow(/no installed app/);
    expect(() => findDesktopEntry('helperd', env)).toThrow(/no installed app/);
    expect(() => findDesktopEntry('missing', env)).toThrow(/no installed app/);
    expect(() => findDesktopEntry('link', env)).toThrow(/no installed app/);
  });

  it('refuses a name several apps share, listing them', () => {
    expect(() => findDesktopEntry('Twin', env)).toThrow(/names 2 installed apps: twin-a .*twin-b/);
  });

  it('suggests near names when nothing matches', () => {
    const err = (() => {
      try {
        findDesktopEntry('cal', env);
      } catch (e) {
        return e as LookupError;
      }
    })();
    expect(err).toBeInstanceOf(LookupError);
    expect(err?.suggestions).toEqual(['org.example.Calc']);
  });

  it('plans a launch with every name the policy checks, before anything runs', () => {
    const plan = planLaunch({ app: 'Mousepad' }, env);
    expect(plan.argv).toEqual(['mousepad']);
    expect(plan.names).toEqual(['org.xfce.mousepad', 'Mousepad', 'mousepad']);
    expect(plan.source).toMatch(/org\.xfce\.mousepad\.desktop$/);
    // calc2 is a #!/bin/sh script: the shell it runs is in what the policy checks.
    expect(planLaunch({ command: ['calc2', '-x'] }, env)).toEqual({
      argv: ['calc2', '-x'],
      names: ['calc2'],
      executable: expect.stringMatching(/\/bin\/calc2$/) as unknown,
      programs: expect.arrayContaining(['calc2', 'sh']) as unknown,
      // Every file that would run, the script and its shell, for the identity check.
      executables: expect.arrayContaining([
        expect.stringMatching(/\/bin\/calc2$/),
        expect.stringMatching(/sh$/),
      ]) as unknown,
    });
    expect(() => planLaunch({ command: ['no-such-program'] }, env)).toThrow(PlatformError);
    expect(() => planLaunch({ command: ['/etc/passwd'] }, env)).toThrow(/not an executable/);
    expect(() => planLaunch({ app: 'nothing-like-it' }, env)).toThrow(/no installed app/);
  });

  it('tells a plan of an entry not shown in menus, for safe mode to refuse', () => {
    expect(planLaunch({ app: 'org.x.helperd' }, env).unlisted).toMatch(/NoDisplay/);
    expect(planLaunch({ app: 'Mousepad' }, env).unlisted).toBeUndefined();
    expect(planLaunch({ command: ['helperd'] }, env).unlisted).toBeUndefined();
  });
});

describe('launchEnv', () => {
  it('turns accessibility on for every toolkit and keeps the rest', () => {
    const env = launchEnv({
      PATH: '/bin',
      DISPLAY: ':5',
      NO_AT_BRIDGE: '1',
      GTK_A11Y: 'none',
      WAYLAND_DISPLAY: 'wayland-0',
    });
    expect(env).toEqual({
      PATH: '/bin',
      DISPLAY: ':5',
      QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1',
      QT_ACCESSIBILITY: '1',
      GNOME_ACCESSIBILITY: '1',
    });
  });

  it('keeps the Wayland display on sway and tells Qt and Firefox to use it', () => {
    const env = launchEnv({
      PATH: '/bin',
      SWAYSOCK: '/run/sway.sock',
      WAYLAND_DISPLAY: '/run/wayland-1',
      QT_QPA_PLATFORM: 'wayland;xcb',
    });
    expect(env).toEqual({
      PATH: '/bin',
      SWAYSOCK: '/run/sway.sock',
      WAYLAND_DISPLAY: '/run/wayland-1',
      GDK_BACKEND: 'wayland',
      QT_QPA_PLATFORM: 'wayland;xcb',
      MOZ_ENABLE_WAYLAND: '1',
      QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1',
      QT_ACCESSIBILITY: '1',
      GNOME_ACCESSIBILITY: '1',
    });
  });
});
