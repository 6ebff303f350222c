import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_CONFIG,
  SETTINGS,
  loadConfig,
  parseServeArgs,
  serveHelp,
} from '../../src/config.js';

/** loadConfig's error for this environment (fails the test when nothing is thrown). */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be rejected`);
}

const INT_VARS = [
  { name: 'AXPAGE_MAX_ELEMENTS', min: 1, get: (c = loadConfig({})) => c.limits.maxElements },
  {
    name: 'AXPAGE_MAX_TABLE_ROWS',
    min: 1,
    get: (c = loadConfig({})) => c.limits.maxTableRows,
  },
  { name: 'AXPAGE_MAX_DEPTH', min: 1, get: (c = loadConfig({})) => c.limits.maxDepth },
  { name: 'AXPAGE_TIME_BUDGET_MS', min: 1, get: (c = loadConfig({})) => c.limits.timeBudgetMs },
  { name: 'AXPAGE_SETTLE_QUIET_MS', min: 0, get: (c = loadConfig({})) => c.settleQuietMs },
  { name: 'AXPAGE_SETTLE_MAX_MS', min: 0, get: (c = loadConfig({})) => c.settleMaxMs },
  { name: 'AXPAGE_SPAWN_WAIT_MS', min: 0, get: (c = loadConfig({})) => c.spawnWaitMs },
];

describe('loadConfig: defaults', () => {
  it('gives the defaults for an empty environment', () => {
    expect(loadConfig({})).toEqual(DEFAULT_CONFIG);
  });

  it('has sane defaults: bounded walks, settle quiet below its maximum, screenshots on', () => {
    const d = DEFAULT_CONFIG;
    expect(d.limits.maxElements).toBeGreaterThan(0);
    expect(d.limits.maxDepth).toBeGreaterThan(0);
    expect(d.limits.timeBudgetMs).toBeGreaterThan(0);
    expect(d.settleQuietMs).toBeLessThan(d.settleMaxMs);
    expect(d.screenshots).toBe('file');
  });

  it('ignores unrelated variables and treats empty values as unset', () => {
    const env = { PATH: '/usr/bin', AXPAGE_UNKNOWN: 'x', AXPAGE_MAX_DEPTH: '' };
    expect(loadConfig(env)).toEqual(DEFAULT_CONFIG);
  });

  it('treats whitespace-only values as unset, not as 0', () => {
    const c = loadConfig({ AXPAGE_SETTLE_QUIET_MS: ' ', AXPAGE_SCREENSHOTS: '  ' });
    expect(c.settleQuietMs).toBe(DEFAULT_CONFIG.settleQuietMs);
    expect(c.screenshots).toBe('file');
  });

  it('returns a fresh object: changing it leaves the defaults alone', () => {
    const c = loadConfig({});
    c.limits.maxElements = 1;
    expect(DEFAULT_CONFIG.limits.maxElements).not.toBe(1);
    expect(loadConfig({}).limits.maxElements).toBe(DEFAULT_CONFIG.limits.maxElements);
  });
});

describe('loadConfig: overrides', () => {
  it.each(INT_VARS)('$name overrides its setting and only it', ({ name, get }) => {
    const value = 7919;
    const c = loadConfig({ [name]: String(value) });
    expect(get(c)).toBe(value);
    // Every other setting keeps its default.
    for (const other of INT_VARS.filter((v) => v.name !== name))
      expect(other.get(c)).toBe(other.get());
    expect(c.screenshots).toBe(DEFAULT_CONFIG.screenshots);
  });

  it.each(INT_VARS)(
    '$name accepts its minimum ($min) and surrounding spaces',
    ({ name, min, get }) => {
      expect(get(loadConfig({ [name]: String(min) }))).toBe(min);
      expect(get(loadConfig({ [name]: ` ${min + 3} ` }))).toBe(min + 3);
    },
  );

  it('reads several overrides at once', () => {
    const c = loadConfig({
      AXPAGE_MAX_ELEMENTS: '200',
      AXPAGE_MAX_DEPTH: '9',
      AXPAGE_TIME_BUDGET_MS: '750',
      AXPAGE_SETTLE_QUIET_MS: '0',
      AXPAGE_SETTLE_MAX_MS: '0',
      AXPAGE_SPAWN_WAIT_MS: '100',
      AXPAGE_SCREENSHOTS: '0',
      AXPAGE_HEAP_GROWTH: '0',
    });
    expect(c).toEqual({
      limits: { maxElements: 200, maxDepth: 9, timeBudgetMs: 750 },
      settleQuietMs: 0,
      settleMaxMs: 0,
      spawnWaitMs: 100,
      screenshots: 'off',
      retention: DEFAULT_CONFIG.retention,
      transport: 'stdio',
      http: DEFAULT_CONFIG.http,
      policy: DEFAULT_CONFIG.policy,
      visible: 'new',
      recordText: false,
      heapGrowthPercent: 0,
      confirmDestructive: 'ask',
      destructiveWords: [],
    });
  });

  it('reads when destructive actions are confirmed, and more destructive words', () => {
    const c = loadConfig({
      AXPAGE_CONFIRM_DESTRUCTIVE: 'always',
      AXPAGE_DESTRUCTIVE_WORDS: 'shred, factory reset',
    });
    expect(c.confirmDestructive).toBe('always');
    expect(c.destructiveWords).toEqual(['shred', 'factory reset']);
    expect(() => loadConfig({ AXPAGE_CONFIRM_DESTRUCTIVE: 'sometimes' })).toThrow(
      /AXPAGE_CONFIRM_DESTRUCTIVE/,
    );
  });

  it.each([
    ['1', 'file'],
    ['true', 'file'],
    ['TRUE', 'file'],
    ['yes', 'file'],
    ['on', 'file'],
    [' on ', 'file'],
    ['file', 'file'],
    ['inline', 'inline'],
    ['0', 'off'],
    ['false', 'off'],
    ['No', 'off'],
    ['off', 'off'],
  ])('AXPAGE_SCREENSHOTS=%j reads as %s', (raw, expected) => {
    expect(loadConfig({ AXPAGE_SCREENSHOTS: raw }).screenshots).toBe(expected);
  });
});

describe('loadConfig: invalid values', () => {
  it.each(INT_VARS)('$name rejects non-numbers, fractions and negatives by name', ({ name }) => {
    for (const raw of ['abc', '1.5', '-1', '12ms', 'NaN', 'Infinity']) {
      const err = configError({ [name]: raw });
      expect(err.message).toContain(`${name}=${raw}`);
      expect(err.message).toMatch(/is not a whole number >= [01]/);
    }
  });

  it.each(INT_VARS.filter((v) => v.min === 1))('$name rejects 0 (its minimum is 1)', ({ name }) => {
    expect(configError({ [name]: '0' }).message).toBe(
      `${name}=0 is not a whole number >= 1; unset it or fix it`,
    );
  });

  it('names the bad variable, not a good one next to it', () => {
    const err = configError({ AXPAGE_MAX_ELEMENTS: '100', AXPAGE_SETTLE_MAX_MS: 'soon' });
    expect(err.message).toContain('AXPAGE_SETTLE_MAX_MS=soon');
    expect(err.message).not.toContain('AXPAGE_MAX_ELEMENTS');
  });

  it.each(['maybe', '2', 'enabled', 'tru'])('AXPAGE_SCREENSHOTS=%j is rejected by name', (raw) => {
    const err = configError({ AXPAGE_SCREENSHOTS: raw });
    expect(err.message).toBe(`AXPAGE_SCREENSHOTS=${raw} is not one of off, file, inline`);
    expect(err.name).toBe('ConfigError');
  });
});

describe('axpage serve flags', () => {
  it('reads --flag value and --flag=value; a flag wins over its variable', () => {
    const { help, flags } = parseServeArgs([
      '--mode',
      'read-only',
      '--max-depth=7',
      '--deny-apps',
      'a, b',
    ]);
    expect(help).toBe(false);
    const c = loadConfig({ AXPAGE_MAX_DEPTH: '9', AXPAGE_MODE: 'safe' }, flags);
    expect(c.limits.maxDepth).toBe(7);
    expect(c.policy.mode).toBe('read-only');
    expect(c.policy.denyApps).toEqual(['a', 'b']);
  });

  it('reads the launch allow list from --launch-allow and AXPAGE_LAUNCH_ALLOW', () => {
    expect(loadConfig({}).policy.launchAllow).toEqual([]);
    expect(
      loadConfig({ AXPAGE_LAUNCH_ALLOW: 'mousepad, /usr/bin/galculator' }).policy.launchAllow,
    ).toEqual(['mousepad', '/usr/bin/galculator']);
    const { flags } = parseServeArgs(['--launch-allow=gtk3-*']);
    expect(loadConfig({ AXPAGE_LAUNCH_ALLOW: 'x' }, flags).policy.launchAllow).toEqual(['gtk3-*']);
  });

  it('refuses unknown flags, flags without values and bad values, naming them', () => {
    expect(() => parseServeArgs(['--listen', '3000', '--bogus'])).toThrow(
      /unknown argument '--listen'/,
    );
    expect(() => parseServeArgs(['stray'])).toThrow(/unknown argument 'stray'/);
    expect(() => parseServeArgs(['--mode'])).toThrow(/--mode needs a value/);
    expect(() => loadConfig({}, parseServeArgs(['--mode', 'yolo']).flags)).toThrow(
      /--mode yolo is not one of full, safe, read-only/,
    );
    expect(() => loadConfig({}, { 'rate-limit': '-1' })).toThrow(
      /--rate-limit -1 is not a whole number >= 0/,
    );
  });

  it('--help is asked for, and the help text lists every setting with its variable', () => {
    expect(parseServeArgs(['--help']).help).toBe(true);
    const text = serveHelp();
    for (const s of SETTINGS) {
      expect(text).toContain(`--${s.flag} ${s.arg}`);
      expect(text).toContain(`[${s.env}]`);
    }
  });
});
