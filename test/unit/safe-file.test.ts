/** The artifact dir's one writer, on a real dir: planted links are never written through. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  appendToLog,
  claimNewFile,
  UnsafeFileError,
  writeNewFile,
} from '../../src/capture/safe-file.js';
import { JsonLines } from '../../src/guard/audit.js';

let dir: string;
let outside: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-safe-'));
  outside = path.join(dir, 'outside.txt');
  fs.writeFileSync(outside, 'keep\n');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('appendToLog', () => {
  it('appends to a file of its own, made 0600', () => {
    const log = path.join(dir, 'a.jsonl');
    appendToLog(log, Buffer.from('1\n'));
    appendToLog(log, Buffer.from('2\n'));
    expect(fs.readFileSync(log, 'utf8')).toBe('1\n2\n');
    expect(fs.statSync(log).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['a hard link', (f: string) => fs.linkSync(outside, f)],
    ['a symlink', (f: string) => fs.symlinkSync(outside, f)],
    ['a dir', (f: string) => fs.mkdirSync(f)],
  ])('refuses %s planted under the name', (_, plant) => {
    const log = path.join(dir, 'audit.jsonl');
    plant(log);
    expect(() => appendToLog(log, Buffer.from('x\n'))).toThrow();
    expect(fs.readFileSync(outside, 'utf8')).toBe('keep\n');
  });

  it('refuses a FIFO planted under the name at once, with nobody reading it', () => {
    const log = path.join(dir, 'audit.jsonl');
    execFileSync('mkfifo', [log]);
    // In a child: an open that waits for a reader would hang this worker beyond any timeout.
    const built = path.resolve('dist/capture/safe-file.js');
    const script = `import { appendToLog } from ${JSON.stringify(built)};
      try { appendToLog(${JSON.stringify(log)}, Buffer.from('x\\n')); console.log('written'); }
      catch (err) { console.log(err.code + ': ' + err.message); }`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 30_000,
    }).toString();
    expect(out).toMatch(/EUNSAFE: .* is not a regular file/);
  });

  it('says so once on stderr and never throws into the call', () => {
    const log = path.join(dir, 'audit.jsonl');
    fs.chmodSync(dir, 0o700);
    fs.linkSync(outside, log);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const lines = new JsonLines(log);
      expect(lines.append({ a: 1 })).toBe(false);
      expect(lines.append({ a: 2 })).toBe(false);
      const said = err.mock.calls.map((c) => String(c[0])).filter((t) => t.includes(log));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/2 links/);
    } finally {
      err.mockRestore();
    }
    expect(fs.readFileSync(outside, 'utf8')).toBe('keep\n');
    expect(() => appendToLog(log, Buffer.from('x'))).toThrow(UnsafeFileError);
  });
});

describe('writeNewFile', () => {
  it('replaces a hard link or symlink planted under the name, the outside file untouched', () => {
    for (const plant of [fs.linkSync, fs.symlinkSync]) {
      const file = path.join(dir, 'x.diff.png');
      fs.rmSync(file, { force: true });
      plant(outside, file);
      writeNewFile(file, Buffer.from('new'));
      expect(fs.readFileSync(outside, 'utf8')).toBe('keep\n');
      expect(fs.readFileSync(file, 'utf8')).toBe('new');
      expect(fs.lstatSync(file).nlink).toBe(1);
      expect(fs.lstatSync(file).mode & 0o777).toBe(0o600);
    }
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('leaves no temp file when the rename fails', () => {
    const file = path.join(dir, 'sub');
    fs.mkdirSync(path.join(file, 'inner'), { recursive: true });
    expect(() => writeNewFile(file, 'x')).toThrow();
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

it('claimNewFile refuses any name already there, a link included', () => {
  const file = path.join(dir, 'c.txt');
  fs.symlinkSync(outside, file);
  expect(() => claimNewFile(file)).toThrow(/EEXIST/);
});
