import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_CONFIG,
  loadConfig,
  parseServeArgs,
  serveHelp,
} from '../../src/config.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-config-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** A config file on disk with this content (a string is written as is). */
function file(content: unknown): string {
  const f = path.join(dir, `c${n++}.json`);
  fs.writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
  return f;
}

function rejected(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

const KNOWN = ['ax_get_tree', 'ax_find', 'ax_click', 'ax_type'];

describe('config file', () => {
  it('sets what it names, by flag name, and leaves the rest at the defaults', () => {
    const f = file({
      'max-depth': 12,
      screenshots: 'inline',
      'deny-apps': ['gedit', 'xterm'],
      'max-bytes': '64M',
      tools: ['-ax_click'],
      out: '/somewhere/private',
    });
    const c = loadConfig({}, { config: f });
    expect(c.limits.maxDepth).toBe(12);
    expect(c.screenshots).toBe('inline');
    expect(c.policy.denyApps).toEqual(['gedit', 'xterm']);
    expect(c.retention.maxBytes).toBe(64 * 1024 ** 2);
    expect(c.policy.denyTools).toEqual(['ax_click']);
    expect(c.outDir).toBe('/somewhere/private');
    expect(c.limits.maxElements).toBe(DEFAULT_CONFIG.limits.maxElements);
    expect(c.retention.maxPairs).toBe(DEFAULT_CONFIG.retention.maxPairs);
  });

  it('is found by AXPAGE_CONFIG too; --config wins over it', () => {
    const a = file({ 'max-depth': 3 });
    const b = file({ 'max-depth': 4 });
    expect(loadConfig({ AXPAGE_CONFIG: a }).limits.maxDepth).toBe(3);
    expect(loadConfig({ AXPAGE_CONFIG: a }, { config: b }).limits.maxDepth).toBe(4);
    expect(parseServeArgs(['--config', b]).flags.config).toBe(b);
  });

  it('precedence: defaults < file < environment < flags, setting by setting', () => {
    const f = file({ 'max-depth': 11, 'max-elements': 111, 'rate-limit': 5, 'max-pairs': 9 });
    const c = loadConfig(
      { AXPAGE_CONFIG: f, AXPAGE_MAX_ELEMENTS: '222', AXPAGE_RATE_LIMIT: '6' },
      { 'rate-limit': '7' },
    );
    expect(c.limits.maxDepth).toBe(11); // file only
    expect(c.limits.maxElements).toBe(222); // env over file
    expect(c.policy.ratePerMinute).toBe(7); // flag over env over file
    expect(c.retention.maxPairs).toBe(9);
    expect(c.limits.timeBudgetMs).toBe(DEFAULT_CONFIG.limits.timeBudgetMs); // nobody
  });

  it('refuses an unknown key, naming the file, the key and the known keys', () => {
    const f = file({ 'max-depth': 3, 'max-dept': 4 });
    const msg = rejected(() => loadConfig({}, { config: f }));
    expect(msg).toContain(f);
    expect(msg).toContain('unknown key "max-dept"');
    expect(msg).toContain('max-depth');
  });

  it('refuses a bad value, naming the file and the key', () => {
    const f = file({ 'max-depth': 'deep' });
    const msg = rejected(() => loadConfig({}, { config: f }));
    expect(msg).toBe(
      `config file ${f}: "max-depth": "deep" is not a whole number >= 1; unset it or fix it`,
    );
    const g = file({ screenshots: 'sometimes' });
    expect(rejected(() => loadConfig({}, { config: g }))).toContain(`${g}: "screenshots"`);
    const h = file({ 'max-depth': { value: 3 } });
    expect(rejected(() => loadConfig({}, { config: h }))).toContain(
      `${h}: "max-depth" is {"value":3}`,
    );
  });

  it('refuses a missing file, one that is not JSON and one that is not an object', () => {
    const missing = path.join(dir, 'nope.json');
    expect(rejected(() => loadConfig({ AXPAGE_CONFIG: missing }))).toContain(
      `cannot read config file ${missing} (ENOENT)`,
    );
    const broken = file('{"max-depth": 3,');
    expect(rejected(() => loadConfig({}, { config: broken }))).toContain(
      `config file ${broken} is not JSON`,
    );
    const list = file([1, 2]);
    expect(rejected(() => loadConfig({}, { config: list }))).toContain('must hold a JSON object');
  });

  it('a bad value in the file is an error even when the environment sets the same key', () => {
    const f = file({ 'max-depth': -1 });
    expect(rejected(() => loadConfig({ AXPAGE_CONFIG: f, AXPAGE_MAX_DEPTH: '5' }))).toContain(f);
  });
});

describe('--tools', () => {
  it('splits names to list and names to leave out (-name)', () => {
    const c = loadConfig({}, { tools: 'ax_get_tree, ax_find' }, { knownTools: KNOWN });
    expect(c.policy.allowTools).toEqual(['ax_get_tree', 'ax_find']);
    expect(c.policy.denyTools).toEqual([]);
    const d = loadConfig({ AXPAGE_TOOLS: '-ax_click,-ax_type' }, {}, { knownTools: KNOWN });
    expect(d.policy.allowTools).toEqual([]);
    expect(d.policy.denyTools).toEqual(['ax_click', 'ax_type']);
  });

  it('refuses an unknown tool name, listing the known ones', () => {
    const msg = rejected(() =>
      loadConfig({}, { tools: 'ax_find,-ax_clik,ax_tree' }, { knownTools: KNOWN }),
    );
    expect(msg).toBe(
      `--tools ax_find,-ax_clik,ax_tree: unknown tools -ax_clik, ax_tree; the tools are ${KNOWN.join(', ')}`,
    );
  });
});

describe('retention caps and transport in the table', () => {
  it('reads AXPAGE_MAX_PAIRS and AXPAGE_MAX_BYTES (and their flags) with their errors', () => {
    const c = loadConfig({ AXPAGE_MAX_PAIRS: '42', AXPAGE_MAX_BYTES: '1.5GiB' });
    expect(c.retention).toEqual({ maxPairs: 42, maxBytes: 1.5 * 1024 ** 3 });
    expect(loadConfig({}, { 'max-bytes': '64k' }).retention.maxBytes).toBe(65536);
    expect(rejected(() => loadConfig({ AXPAGE_MAX_PAIRS: '0' }))).toContain('AXPAGE_MAX_PAIRS=0');
    expect(rejected(() => loadConfig({ AXPAGE_MAX_BYTES: '12 parsecs' }))).toBe(
      'AXPAGE_MAX_BYTES=12 parsecs is not a size >= 1 byte (e.g. 524288000, 500M, 2GiB); unset it or fix it',
    );
  });

  it('takes --transport stdio and http; others are unknown', () => {
    expect(loadConfig({}, { transport: 'stdio' }).transport).toBe('stdio');
    expect(loadConfig({}, { transport: 'http' }).transport).toBe('http');
    expect(rejected(() => loadConfig({ AXPAGE_TRANSPORT: 'pigeon' }))).toBe(
      'AXPAGE_TRANSPORT=pigeon is not one of stdio, http',
    );
  });

  it('the help lists --config and the new settings', () => {
    const help = serveHelp();
    for (const flag of [
      '--config FILE',
      '--tools LIST',
      '--max-pairs N',
      '--max-bytes SIZE',
      '--transport NAME',
      '--screenshots MODE',
    ]) {
      expect(help).toContain(flag);
    }
  });
});

describe('docs/settings.md settings table', () => {
  it('has one row per setting, as the settings table gives it, in order', async () => {
    const { settingsRows } = await import('../../src/config.js');
    const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'settings.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('# Settings'),
      readme.indexOf('\n## ', readme.indexOf('# Settings') + 1),
    );
    const rows = section
      .split('\n')
      .filter((l) => l.startsWith('| `--'))
      .map((l) =>
        l
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((c) => c.trim().replaceAll('\\|', '|')),
      );
    expect(rows).toEqual(settingsRows());
  });
});
