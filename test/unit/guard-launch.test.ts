/** The launch budget: apps launched and still running, and launches per minute. */
import { describe, expect, it } from 'vitest';
import { AxError } from '../../src/errors.js';
import {
  DEFAULT_POLICY,
  Policy,
  type LaunchFacts,
  type PolicySettings,
} from '../../src/guard/policy.js';

function policy(over: Partial<PolicySettings>, now: () => number = () => 0): Policy {
  return new Policy({ ...DEFAULT_POLICY, ...over }, now);
}

function refusal(fn: () => void): AxError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AxError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('Policy.admitLaunch', () => {
  it('refuses a launch while the limit of launched apps still runs, and names them', () => {
    const p = policy({ maxLaunchedApps: 2, launchesPerMinute: 0 });
    const alive = new Set([101, 102]);
    for (const pid of alive) {
      p.admitLaunch((x) => alive.has(x));
      p.recordLaunched(pid);
    }
    const err = refusal(() => p.admitLaunch((x) => alive.has(x)));
    expect(err.code).toBe('rate_limited');
    expect(err.message).toBe(
      'launch budget: 2 apps this server launched are still running (pids 101, 102), the limit is 2',
    );
    expect(err.hint).toMatch(/ax_quit_app.*AXPAGE_MAX_LAUNCHED_APPS/);
    // One of them exits: there is room again.
    alive.delete(101);
    expect(() => p.admitLaunch((x) => alive.has(x))).not.toThrow();
  });

  it('refuses past the launches per minute, saying how long to wait, and counts no refusal', () => {
    let now = 1_000_000;
    const p = policy({ maxLaunchedApps: 0, launchesPerMinute: 3 }, () => now);
    for (let i = 0; i < 3; i++) {
      p.admitLaunch(() => false);
      now += 10_000;
    }
    const err = refusal(() => p.admitLaunch(() => false));
    expect(err.message).toBe('launch rate limit: 3 launches in the last minute, the limit is 3');
    expect(err.details).toEqual({ retry_after_s: 30 });
    // The first launch leaves the window after 60 s; the refused ones never counted.
    now = 1_000_000 + 60_000;
    expect(() => p.admitLaunch(() => false)).not.toThrow();
    expect(() => p.admitLaunch(() => false)).toThrow(/launch rate limit/);
  });

  it('has no limit at 0', () => {
    const p = policy({ maxLaunchedApps: 0, launchesPerMinute: 0 });
    for (let pid = 1; pid < 200; pid++) {
      expect(() => p.admitLaunch(() => true), `launch ${pid}`).not.toThrow();
      p.recordLaunched(pid);
    }
  });
});

describe('Policy.checkLaunch', () => {
  const command = (over: Partial<LaunchFacts> = {}): LaunchFacts => ({
    kind: 'command',
    names: ['notes'],
    executable: '/usr/bin/dash',
    programs: ['notes', 'sh', 'dash'],
    ...over,
  });

  it('refuses a denied name anywhere in what runs, saying what runs it', () => {
    const err = refusal(() => policy({ denyApps: ['sh'] }).checkLaunch(command()));
    expect(err.code).toBe('blocked');
    expect(err.message).toBe(
      "sh (notes runs sh) is blocked by this server's policy (deny list: 'sh'); nothing was started",
    );
    expect(() => policy({ denyApps: ['python3'] }).checkLaunch(command())).not.toThrow();
  });

  it('refuses a wrapper while launches are restricted, and only then', () => {
    const wrapped = command({
      executable: '/usr/bin/xargs',
      programs: ['xargs'],
      wrapper: 'xargs',
    });
    for (const over of [
      { denyApps: ['x'] },
      { allowApps: ['xargs'] },
      { mode: 'safe' as const, launchAllow: ['xargs'] },
    ]) {
      expect(refusal(() => policy(over).checkLaunch(wrapped)).message).toMatch(
        /runs another command through xargs, which this server's policy cannot check; nothing was started/,
      );
    }
    expect(() => policy({}).checkLaunch(wrapped)).not.toThrow();
  });

  it('safe mode launches a command only when its real executable is on the launch allow list', () => {
    const mousepad = command({
      names: ['mousepad'],
      executable: '/usr/bin/mousepad',
      programs: ['mousepad'],
    });
    const err = refusal(() => policy({ mode: 'safe' }).checkLaunch(mousepad));
    expect(err.message).toMatch(
      /safe mode, which launches installed apps only, and \/usr\/bin\/mousepad is not on its launch allow list/,
    );
    expect(err.hint).toMatch(/desktop: .*AXPAGE_LAUNCH_ALLOW/);
    for (const allow of ['mousepad', 'mouse*', '/usr/bin/mousepad']) {
      expect(() =>
        policy({ mode: 'safe', launchAllow: [allow] }).checkLaunch(mousepad),
      ).not.toThrow();
    }
    // A link named like an allowed program is the program it links to.
    expect(() => policy({ mode: 'safe', launchAllow: ['notes'] }).checkLaunch(command())).toThrow(
      /not on its launch allow list/,
    );
    expect(() =>
      policy({ mode: 'safe', launchAllow: ['/usr/bin/mouse'] }).checkLaunch(mousepad),
    ).toThrow();
    // Installed apps need no allow entry.
    expect(() =>
      policy({ mode: 'safe' }).checkLaunch({ ...mousepad, kind: 'desktop' }),
    ).not.toThrow();
  });

  it('an allow list counts a command by its real file, not by a link name', () => {
    expect(() => policy({ allowApps: ['notes'] }).checkLaunch(command())).toThrow(
      /dash is not on this server's allow list/,
    );
    expect(() => policy({ allowApps: ['dash'] }).checkLaunch(command())).not.toThrow();
  });
});

describe('Policy.checkApp', () => {
  it('denies a running app by its real executable as well as by the name it registered', () => {
    const exe = new Map([[42, '/usr/bin/galculator']]);
    const p = new Policy(
      { ...DEFAULT_POLICY, denyApps: ['galculator'] },
      () => 0,
      (pid) => exe.get(pid),
    );
    const err = refusal(() => p.checkApp({ pid: 42, name: 'calc' }));
    expect(err.message).toBe("pid 42 is blocked by this server's policy");
    expect(() => p.checkApp({ pid: 43, name: 'calc' })).not.toThrow();
    // A caller that knows the executable passes it; the old shape still works.
    expect(() => p.checkApp({ pid: 43, name: 'calc', executable: '/opt/galculator' })).toThrow(
      /blocked/,
    );
    expect(() => policy({ denyApps: ['calc'] }).checkApp({ pid: 1, name: 'calc' })).toThrow(
      /blocked/,
    );
  });
});

describe('the deny list by identity', () => {
  // What the platform would say: /tmp/x/zcopy is a copy of zenity, pid 7 runs one.
  const identity = {
    ofFile: (file: string, patterns: readonly string[]) =>
      file === '/tmp/x/zcopy' && patterns.includes('zenity') ? 'zenity' : undefined,
    ofProcess: (pid: number, patterns: readonly string[]) =>
      pid === 7 && patterns.includes('zenity') ? 'zenity' : undefined,
  };
  const p = new Policy(
    { ...DEFAULT_POLICY, denyApps: ['zenity'] },
    () => 0,
    () => undefined,
    identity,
  );

  it('refuses a launch that would run a copy of a denied program, whatever its name', () => {
    const err = refusal(() =>
      p.checkLaunch({
        kind: 'desktop',
        names: ['zview', 'Z View', 'zcopy'],
        executable: '/tmp/x/zcopy',
        executables: ['/tmp/x/zcopy'],
        programs: ['zcopy'],
      }),
    );
    expect(err.message).toBe(
      "zview runs /tmp/x/zcopy, a copy or link of a program this server's policy blocks; nothing was started",
    );
    expect(() =>
      p.checkLaunch({
        kind: 'command',
        names: ['notes'],
        executable: '/usr/bin/notes',
        executables: ['/usr/bin/notes'],
        programs: ['notes'],
      }),
    ).not.toThrow();
  });

  it('refuses and hides a running copy, naming only its pid', () => {
    expect(refusal(() => p.checkApp({ pid: 7, name: 'zz' })).message).toBe(
      "pid 7 is blocked by this server's policy",
    );
    expect(p.denies({ pid: 7, name: '' })).toBe(true);
    expect(p.denies({ pid: 8, name: 'zz' })).toBe(false);
    expect(() => p.checkApp({ pid: 8, name: 'zz' })).not.toThrow();
  });
});

describe('Policy.checkLaunch of installed apps', () => {
  const facts = (over: Partial<LaunchFacts> = {}): LaunchFacts => ({
    kind: 'desktop',
    names: ['mutter', 'Mutter', 'mutter'],
    executable: '/usr/bin/mutter',
    executables: ['/usr/bin/mutter'],
    programs: ['mutter'],
    ...over,
  });

  it('in safe mode refuses an entry not shown in menus (a window manager, a daemon helper)', () => {
    const p = policy({ mode: 'safe' });
    const err = refusal(() =>
      p.checkLaunch(facts({ unlisted: 'its desktop file says NoDisplay=true' })),
    );
    expect(err.code).toBe('blocked');
    expect(err.message).toMatch(
      /mutter .*not an app shown to people.*NoDisplay=true.*nothing was started/,
    );
    expect(err.hint).toMatch(/AXPAGE_LAUNCH_ALLOW/);
    // Shown in menus: launched.
    expect(() => p.checkLaunch(facts())).not.toThrow();
  });

  it('in full mode launches it, and in safe mode by command when the allow list has it', () => {
    expect(() =>
      policy({ mode: 'full' }).checkLaunch(facts({ unlisted: 'NoDisplay=true' })),
    ).not.toThrow();
    expect(() =>
      policy({ mode: 'safe', launchAllow: ['mutter'] }).checkLaunch(
        facts({ kind: 'command', unlisted: undefined }),
      ),
    ).not.toThrow();
  });
});
