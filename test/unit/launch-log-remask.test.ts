/**
 * A secret learned after an app printed it: the launch logs already written are masked
 * again, in a new file renamed over the old (still 0600), and a log still written goes on
 * in the new file with nothing lost.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  HandedOnEchoes,
  LaunchLog,
  LaunchLogs,
  remaskFile,
} from '../../src/pipeline/launch-log.js';
import type { LaunchOutput } from '../../src/platform/desktop.js';

const SECRET = 'LearnedLater-5521';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'remask-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function newLog(name: string, echoes: HandedOnEchoes): { log: LaunchLog; file: string } {
  const file = path.join(dir, name);
  const fd = fs.openSync(file, 'wx', 0o600);
  return { log: new LaunchLog(file, fd, echoes), file };
}

/** An app's output the test writes to, as its pipes would bring it. */
function fakeOutput(): { output: LaunchOutput; print: (text: string) => void; end: () => void } {
  let sink:
    { data(stream: number, chunk: Uint8Array): void; end(stream: number): void } | undefined;
  const output = {
    read(s: typeof sink) {
      sink = s;
    },
    handOver: async () => undefined,
  } as unknown as LaunchOutput;
  return {
    output,
    print: (text) => sink!.data(0, Buffer.from(text)),
    end: () => {
      sink!.end(0);
      sink!.end(1);
    },
  };
}

describe('launch logs masked again when a secret is learned', () => {
  it('masks what a live log holds, keeps 0600, and writes on into the new file', () => {
    const echoes = new HandedOnEchoes();
    const logs = new LaunchLogs();
    echoes.whenAdded(() => logs.remask());
    const { log, file } = newLog('launch-1-app.log', echoes);
    logs.add(log);
    const app = fakeOutput();
    log.follow(app.output);
    app.print(`token is ${SECRET}\nanother line\n`);
    expect(fs.readFileSync(file, 'utf8')).toContain(SECRET);
    echoes.add(SECRET);
    expect(fs.readFileSync(file, 'utf8')).toBe('token is •••\nanother line\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    app.print(`after: ${SECRET} and more\n`);
    app.end();
    expect(fs.readFileSync(file, 'utf8')).toBe('token is •••\nanother line\nafter: ••• and more\n');
    expect(fs.readdirSync(dir)).toEqual(['launch-1-app.log']);
  });

  it('masks a finished log too', () => {
    const echoes = new HandedOnEchoes();
    const logs = new LaunchLogs();
    echoes.whenAdded(() => logs.remask());
    const { log, file } = newLog('launch-2-app.log', echoes);
    logs.add(log);
    const app = fakeOutput();
    log.follow(app.output);
    app.print(`old ${SECRET}\n`);
    app.end();
    logs.delete(log);
    echoes.add(SECRET);
    expect(fs.readFileSync(file, 'utf8')).toBe('old •••\n');
  });

  it('remaskFile leaves a file with nothing to mask as it was, and masks lines across chunks', () => {
    const echoes = new HandedOnEchoes();
    echoes.add(SECRET);
    const plain = path.join(dir, 'plain.log');
    fs.writeFileSync(plain, 'nothing here\n', { mode: 0o600 });
    const inode = fs.statSync(plain).ino;
    expect(remaskFile(plain, echoes)).toBe(false);
    expect(fs.statSync(plain).ino).toBe(inode);
    const big = path.join(dir, 'big.log');
    const filler = 'x'.repeat(1000) + '\n';
    const text = filler.repeat(1048) + `at the cut ${SECRET}\n` + filler.repeat(10);
    fs.writeFileSync(big, text, { mode: 0o600 });
    expect(remaskFile(big, echoes)).toBe(true);
    const after = fs.readFileSync(big, 'utf8');
    expect(after).not.toContain(SECRET);
    expect(after.length).toBe(text.length - SECRET.length + 3);
    expect(fs.readdirSync(dir).sort()).toEqual(['big.log', 'plain.log']);
  });
});
