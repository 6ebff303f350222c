import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretFieldFile, secretFieldFile } from '../../src/platform/linux/secret-field-file.js';
import { procStat } from '../../src/platform/linux/proc.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-sff-'));
  file = path.join(dir, 'axpage', 'secret-fields.json');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('SecretFieldFile', () => {
  it('lives in the runtime dir of the desktop, private to the user', () => {
    const store = secretFieldFile({ XDG_RUNTIME_DIR: dir });
    expect(store.file).toBe(file);
    store.save(new Map([[process.pid, ['a']]]));
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['secret-fields.json']);
  });

  it('a second reader gets what the first saved, merged, and nothing again until it changes', () => {
    const writer = new SecretFieldFile(file);
    writer.save(new Map([[process.pid, ['a']]]));
    writer.save(new Map([[process.pid, ['b']]]));
    const reader = new SecretFieldFile(file);
    expect(reader.loadIfChanged()).toEqual(new Map([[process.pid, ['a', 'b']]]));
    expect(reader.loadIfChanged()).toBeNull();
  });

  it('drops a process whose start time differs (a reused pid) and a dead one', () => {
    fs.mkdirSync(path.dirname(file), { mode: 0o700 });
    const start = procStat(process.pid)!.start;
    const apps = {
      [process.pid]: { start: start + 1, ids: ['reused'] },
      [process.ppid]: { start: procStat(process.ppid)!.start, ids: ['live'] },
      '4194304': { start: 1, ids: ['dead'] },
    };
    fs.writeFileSync(file, JSON.stringify({ version: 1, apps }), { mode: 0o600 });
    expect(new SecretFieldFile(file).loadIfChanged()).toEqual(new Map([[process.ppid, ['live']]]));
  });

  it('never follows a symlink planted as the file, and saves over it as a file', () => {
    fs.mkdirSync(path.dirname(file), { mode: 0o700 });
    const target = path.join(dir, 'elsewhere.json');
    fs.writeFileSync(target, 'untouched');
    fs.symlinkSync(target, file);
    const store = new SecretFieldFile(file);
    expect(store.loadIfChanged()).toEqual(new Map());
    store.save(new Map([[process.pid, ['a']]]));
    expect(fs.readFileSync(target, 'utf8')).toBe('untouched');
    expect(fs.lstatSync(file).isFile()).toBe(true);
  });

  it('takes a garbled file for an empty one', () => {
    fs.mkdirSync(path.dirname(file), { mode: 0o700 });
    fs.writeFileSync(file, '{"apps": [1, 2', { mode: 0o600 });
    expect(new SecretFieldFile(file).loadIfChanged()).toEqual(new Map());
  });
});
