import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AxError, PlatformError, describeError, type PlatformErrorCode } from '../../src/errors.js';
import { adviseAccess, toUserError } from '../../src/pipeline/platform-errors.js';

const CODES: PlatformErrorCode[] = [
  'app_gone',
  'not_responding',
  'element_gone',
  'no_display',
  'no_bus',
  'no_registry',
  'no_window_manager',
  'no_window',
  'bad_key',
  'unsupported',
  'failed',
];

function user(err: PlatformError): AxError {
  const out = toUserError(err);
  expect(out).toBeInstanceOf(AxError);
  return out as AxError;
}

describe('toUserError', () => {
  it('keeps the platform message and adds the next step, naming tools only here', () => {
    const gone = user(
      new PlatformError('app_gone', 'pid 7 is not (or no longer) an app on the accessibility bus', {
        pid: 7,
      }),
    );
    expect(gone.code).toBe('app_gone');
    expect(gone.message).toBe('pid 7 is not (or no longer) an app on the accessibility bus');
    expect(gone.hint).toMatch(/ax_list_apps/);
    expect(gone.details).toEqual({ platform_code: 'app_gone', pid: 7 });
    expect(describeError(gone).message).toBe(
      'pid 7 is not (or no longer) an app on the accessibility bus. It has exited or closed its accessibility connection: call ax_list_apps for what runs now',
    );

    const element = user(new PlatformError('element_gone', 'the element is gone from the app (x)'));
    expect(element.code).toBe('element_gone');
    expect(element.hint).toMatch(/ax_get_tree/);

    const key = user(
      new PlatformError('bad_key', "cannot press 'Nope': unknown key name", { key: 'Nope' }),
    );
    expect(key.code).toBe('bad_argument');
    expect(key.hint).toMatch(/Return, Escape, Tab/);
  });

  it('advises by the facts: which part of the desktop is missing', () => {
    expect(user(new PlatformError('no_display', 'DISPLAY is not set')).hint).toMatch(
      /axpage desktop env/,
    );
    expect(
      user(new PlatformError('no_display', 'cannot open X display :5', { display: ':5' })).hint,
    ).toMatch(/X server is running/);
    expect(user(new PlatformError('no_bus', 'cannot reach the bus')).hint).toMatch(
      /axpage desktop up/,
    );
    expect(
      user(new PlatformError('no_bus', 'the bus does not answer', { address: 'unix:path=/x' }))
        .hint,
    ).toMatch(/at-spi-bus-launcher/);
    for (const code of ['no_display', 'no_bus', 'no_registry'] as const) {
      expect(user(new PlatformError(code, 'x')).code).toBe('no_desktop');
    }
  });

  it('maps every platform code to its user code', () => {
    const expected: Record<PlatformErrorCode, string> = {
      app_gone: 'app_gone',
      not_responding: 'app_not_responding',
      element_gone: 'element_gone',
      no_display: 'no_desktop',
      no_bus: 'no_desktop',
      no_registry: 'no_desktop',
      no_window_manager: 'action_failed',
      no_window: 'action_failed',
      bad_key: 'bad_argument',
      unsupported: 'unsupported',
      failed: 'action_failed',
    };
    expect(Object.keys(expected).sort()).toEqual([...CODES].sort());
    for (const code of CODES) {
      const out = user(new PlatformError(code, `problem ${code}`));
      expect(out.code, code).toBe(expected[code]);
      expect(out.message).toBe(`problem ${code}`);
      expect(out.details).toMatchObject({ platform_code: code });
    }
  });

  it('passes other errors through untouched', () => {
    const ax = new AxError('no_match', 'nothing');
    expect(toUserError(ax)).toBe(ax);
    const plain = new Error('boom');
    expect(toUserError(plain)).toBe(plain);
    expect(toUserError('text')).toBe('text');
  });
});

describe('adviseAccess', () => {
  it('adds the suggestion for the problem the backend named, and leaves the rest alone', () => {
    const advised = adviseAccess({
      ok: false,
      reason: 'the AT-SPI registry does not answer',
      problem: 'no_registry',
      details: {},
    });
    expect(advised.suggestion).toMatch(/at-spi2-registryd/);
    expect(advised.reason).toBe('the AT-SPI registry does not answer');
    const ok = { ok: true, details: { apps: 3 } };
    expect(adviseAccess(ok)).toBe(ok);
    const own = {
      ok: false,
      reason: 'r',
      problem: 'no_bus' as const,
      suggestion: 'mine',
      details: {},
    };
    expect(adviseAccess(own).suggestion).toBe('mine');
  });
});

describe('the platform layer', () => {
  it('never names axpage tools or CLI commands in its code (comments aside)', () => {
    const root = path.resolve(import.meta.dirname, '../../src/platform');
    const files = fs
      .readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    const offenders: string[] = [];
    for (const f of files) {
      const lines = fs.readFileSync(path.join(root, f), 'utf8').split('\n');
      lines.forEach((line, n) => {
        const code = line.replace(/\/\/.*$/, '').trim();
        if (code.startsWith('*') || code.startsWith('/*')) return;
        if (/\bax_[a-z_]+|axpage (desktop|serve|demo)/.test(code))
          offenders.push(`${f}:${n + 1}: ${code}`);
      });
    }
    expect(offenders).toEqual([]);
  });
});
