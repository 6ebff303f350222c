import { mkdtempSync } from 'node:fs';
import { readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AxError } from '../../src/errors.js';
import { AuditLog, redactArgs } from '../../src/guard/audit.js';
import {
  DEFAULT_POLICY,
  Policy,
  matchesApp,
  parseToolList,
  type PolicySettings,
} from '../../src/guard/policy.js';

const gedit = { pid: 4242, name: 'gedit' };

function policy(over: Partial<PolicySettings> = {}, now?: () => number): Policy {
  return new Policy({ ...DEFAULT_POLICY, ...over }, now);
}

function blocked(fn: () => void, code: string): AxError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AxError);
    expect((err as AxError).code).toBe(code);
    return err as AxError;
  }
  throw new Error('expected an error');
}

describe('Policy: tool lists', () => {
  const tools = [
    { name: 'ax_get_tree', kind: 'read' },
    { name: 'ax_find', kind: 'read' },
    { name: 'ax_click', kind: 'action' },
    { name: 'ax_type', kind: 'action' },
  ] as const;
  const listed = (over: Partial<PolicySettings>) =>
    tools.filter((t) => policy(over).toolListed(t)).map((t) => t.name);

  it('lists every tool by default, only the allowed ones, none of the denied ones', () => {
    expect(listed({})).toEqual(['ax_get_tree', 'ax_find', 'ax_click', 'ax_type']);
    expect(listed({ allowTools: ['ax_find', 'ax_click'] })).toEqual(['ax_find', 'ax_click']);
    expect(listed({ denyTools: ['ax_click'] })).toEqual(['ax_get_tree', 'ax_find', 'ax_type']);
    expect(listed({ allowTools: ['ax_find', 'ax_click'], denyTools: ['ax_click'] })).toEqual([
      'ax_find',
    ]);
  });

  it('an allowed tool stays unlisted when the mode leaves it out', () => {
    expect(listed({ mode: 'read-only', allowTools: ['ax_find', 'ax_click'] })).toEqual(['ax_find']);
  });

  it('parseToolList splits allow, deny (-name) and unknown entries', () => {
    expect(
      parseToolList(['ax_find', '-ax_click', 'ax_nope', '-nope'], ['ax_find', 'ax_click']),
    ).toEqual({ allowTools: ['ax_find'], denyTools: ['ax_click'], unknown: ['ax_nope', '-nope'] });
  });
});

describe('Policy: modes', () => {
  it('lists every tool in full mode, no script tool in safe mode, nothing mutating read-only', () => {
    const kinds = ['read', 'session', 'action', 'idempotent-action', 'script'] as const;
    const listed = (mode: PolicySettings['mode']) => kinds.filter((k) => policy({ mode }).lists(k));
    expect(listed('full')).toEqual(kinds);
    expect(listed('safe')).toEqual(['read', 'session', 'action', 'idempotent-action']);
    expect(listed('read-only')).toEqual(['read', 'session']);
  });

  it('refuses typing into a secure field only in safe mode, unless allowed', () => {
    expect(() => policy().checkSecureTyping('[AXTextField] e3')).not.toThrow();
    const err = blocked(
      () => policy({ mode: 'safe' }).checkSecureTyping('[AXTextField] e3'),
      'blocked',
    );
    expect(err.message).toMatch(/password field.*safe mode/);
    expect(err.hint).toMatch(/AXPAGE_ALLOW_SECURE_TYPING/);
    expect(() =>
      policy({ mode: 'safe', allowSecureTyping: true }).checkSecureTyping('x'),
    ).not.toThrow();
  });
});

describe('Policy: app lists', () => {
  it('matches pids, names in any case, and * wildcards; nothing else', () => {
    expect(matchesApp('4242', gedit)).toBe(true);
    expect(matchesApp('424', gedit)).toBe(false);
    expect(matchesApp('GEDIT', gedit)).toBe(true);
    expect(matchesApp('ged', gedit)).toBe(false);
    expect(matchesApp('g*t', gedit)).toBe(true);
    expect(matchesApp('*', gedit)).toBe(true);
    // Regex characters in a pattern are literal.
    expect(matchesApp('ged.t', gedit)).toBe(false);
    expect(matchesApp('', gedit)).toBe(false);
  });

  it('blocks denied apps, and with an allow list everything not on it; deny wins', () => {
    expect(() => policy().checkApp(gedit)).not.toThrow();
    const denied = blocked(() => policy({ denyApps: ['gedit'] }).checkApp(gedit), 'blocked');
    // Only the pid: neither the app's name nor the list is told.
    expect(denied.message).toBe("pid 4242 is blocked by this server's policy");
    expect(() => policy({ allowApps: ['zenity', 'g*'] }).checkApp(gedit)).not.toThrow();
    blocked(() => policy({ allowApps: ['zenity'] }).checkApp(gedit), 'blocked');
    blocked(() => policy({ allowApps: ['gedit'], denyApps: ['4242'] }).checkApp(gedit), 'blocked');
  });
});

describe('Policy: rate limit', () => {
  it('admits the limit per app per minute, then says how long to wait; other apps are unaffected', () => {
    let t = 1_000_000;
    const p = policy({ ratePerMinute: 3 }, () => t);
    for (let i = 0; i < 3; i++) {
      p.admitMutation(gedit);
      t += 1000;
    }
    const err = blocked(() => p.admitMutation(gedit), 'rate_limited');
    expect(err.message).toMatch(/3 mutating calls on gedit .* the limit is 3/);
    expect(err.details).toEqual({ retry_after_s: 57 });
    expect(() => p.admitMutation({ pid: 1, name: 'zenity' })).not.toThrow();
    t += 57_000; // the first call left the window
    expect(() => p.admitMutation(gedit)).not.toThrow();
    blocked(() => p.admitMutation(gedit), 'rate_limited');
  });

  it('never limits with 0', () => {
    const p = policy({ ratePerMinute: 0 });
    let admitted = 0;
    for (let i = 0; i < 10_000; i++) {
      p.admitMutation(gedit);
      admitted++;
    }
    expect(admitted).toBe(10_000);
  });
});

describe('AuditLog', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'axpage-audit-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('never records typed text or set values, and caps long arguments', () => {
    const out = redactArgs({
      ref: 'e3',
      text: 'hunter2',
      value: 's3cret',
      query: 'q'.repeat(500),
      modifiers: ['ctrl'],
      clear_first: true,
      x: 5,
      skipped: undefined,
    });
    expect(JSON.stringify(out)).not.toMatch(/hunter2|s3cret/);
    expect(out.text).toEqual({ masked: 'text' });
    expect(String(out.query).length).toBeLessThanOrEqual(201);
    expect(out).toMatchObject({ ref: 'e3', modifiers: ['ctrl'], clear_first: true, x: 5 });
    expect('skipped' in out).toBe(false);
  });

  it('appends JSON lines, 0600', async () => {
    const log = AuditLog.in(dir);
    log.write({
      tool: 'ax_type',
      args: { ref: 'e1', text: 'pw' },
      outcome: 'success',
      ms: 12,
    });
    log.write({
      tool: 'ax_click',
      args: { query: 'OK' },
      outcome: 'error',
      error_code: 'no_match',
      ms: 3,
    });
    const lines = (await readFile(log.file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ tool: 'ax_type', outcome: 'success', ms: 12 });
    expect(lines[1]).toMatchObject({ tool: 'ax_click', outcome: 'error', error_code: 'no_match' });
    expect(typeof lines[0].time).toBe('string');
    expect((await stat(log.file)).mode & 0o777).toBe(0o600);
    expect(await readFile(log.file, 'utf8')).not.toContain('pw"');
  });

  it('never writes through a symlink planted in its place', async () => {
    const target = path.join(dir, 'elsewhere');
    await writeFile(target, '');
    const log = AuditLog.in(dir);
    await symlink(target, log.file);
    expect(log.write({ tool: 'ax_click', args: {}, outcome: 'success', ms: 1 })).toBe(false);
    expect(await readFile(target, 'utf8')).toBe('');
  });
});
