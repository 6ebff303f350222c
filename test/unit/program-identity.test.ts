/**
 * A deny-list name stands for the programs it names on PATH, and a file or a process is
 * that program whatever it is called: a hard link (same inode), a copy (same content),
 * or the program run by the dynamic loader (whose /proc/PID/exe is the loader), or a script
 * run by its interpreter (whose /proc/PID/exe is the interpreter). A file of
 * the same size but other content is not it. On files made here and the system's sleep.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProgramIdentity } from '../../src/platform/linux/program-identity.js';

const LOADER = '/lib64/ld-linux-x86-64.so.2';
const sleep = fs.realpathSync('/bin/sleep');
let dir: string;
let identity: ProgramIdentity;
const children: ChildProcess[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-identity-'));
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.mkdirSync(path.join(dir, 'other'));
  // The denied program, installed on PATH as "vault".
  fs.copyFileSync('/bin/true', path.join(dir, 'bin', 'vault'));
  fs.chmodSync(path.join(dir, 'bin', 'vault'), 0o755);
  fs.copyFileSync(path.join(dir, 'bin', 'vault'), path.join(dir, 'other', 'copy'));
  fs.linkSync(path.join(dir, 'bin', 'vault'), path.join(dir, 'other', 'hard'));
  // Same size, one byte of its GNU build-id different: a rebuilt program.
  const bytes = fs.readFileSync('/bin/true');
  const id = buildIdOfTrue();
  const at = bytes.indexOf(id);
  expect(at).toBeGreaterThan(0);
  bytes[at] ^= 0xff;
  fs.writeFileSync(path.join(dir, 'other', 'lookalike'), bytes, { mode: 0o755 });
  // Bytes appended, and a data byte patched: other size and SHA-256, same build-id.
  fs.writeFileSync(
    path.join(dir, 'other', 'padded'),
    Buffer.concat([fs.readFileSync('/bin/true'), Buffer.from([0])]),
    { mode: 0o755 },
  );
  const patched = fs.readFileSync('/bin/true');
  patched[patched.length - 1] ^= 0xff;
  fs.writeFileSync(path.join(dir, 'other', 'patched'), patched, { mode: 0o755 });
  fs.copyFileSync(sleep, path.join(dir, 'other', 'napper'));
  fs.chmodSync(path.join(dir, 'other', 'napper'), 0o755);
  identity = new ProgramIdentity({ PATH: `${path.join(dir, 'bin')}` });
});

/** /bin/true's GNU build-id, as readelf prints it. */
function buildIdOfTrue(): Buffer {
  const out = execFileSync('readelf', ['-n', '/bin/true'], { encoding: 'utf8' });
  const m = /Build ID: ([0-9a-f]+)/.exec(out);
  expect(m, out).not.toBeNull();
  return Buffer.from((m as RegExpExecArray)[1], 'hex');
}

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A process started from argv, once its exe and maps are those of what it runs. */
async function started(argv: string[], runs: string): Promise<number> {
  const child = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
  children.push(child);
  const pid = child.pid as number;
  // The exec is done once the process maps what it runs.
  for (;;) {
    const maps = fs.readFileSync(`/proc/${pid}/maps`, 'utf8');
    if (maps.includes(runs)) return pid;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('ProgramIdentity', () => {
  it('resolves a name, and a wildcard, to the real files on PATH and in the bin dirs', () => {
    expect(identity.filesNamed('vault')).toEqual([path.join(dir, 'bin', 'vault')]);
    expect(identity.filesNamed('VA*')).toContain(path.join(dir, 'bin', 'vault'));
    expect(identity.filesNamed('sleep')).toContain(sleep);
    expect(identity.filesNamed('Vault')).toEqual([path.join(dir, 'bin', 'vault')]);
    expect(identity.filesNamed('1234')).toEqual([]);
    expect(identity.filesNamed('no-such-program-xyz')).toEqual([]);
  });

  it('knows a hard link and a copy under any name; not a same-size rebuilt lookalike', () => {
    const other = (f: string) => path.join(dir, 'other', f);
    expect(identity.ofFile(other('hard'), ['gedit', 'vault'])).toBe('vault');
    expect(identity.ofFile(other('copy'), ['vault'])).toBe('vault');
    expect(identity.ofFile(other('lookalike'), ['vault'])).toBeUndefined();
    expect(identity.ofFile(other('copy'), ['gedit', '42'])).toBeUndefined();
    expect(identity.ofFile(other('missing'), ['vault'])).toBeUndefined();
  });

  it('knows an ELF copy with bytes appended or data patched by its GNU build-id', () => {
    const other = (f: string) => path.join(dir, 'other', f);
    expect(fs.statSync(other('padded')).size).not.toBe(fs.statSync(other('copy')).size);
    expect(identity.ofFile(other('padded'), ['vault'])).toBe('vault');
    expect(identity.ofFile(other('patched'), ['vault'])).toBe('vault');
    // Another binary keeps its own build-id.
    expect(identity.ofFile(other('napper'), ['vault'])).toBeUndefined();
    expect(identity.ofFile(other('padded'), ['sleep'])).toBeUndefined();
  });

  it('knows a running copy, and a program the dynamic loader runs', async () => {
    const napper = path.join(dir, 'other', 'napper');
    const copy = await started([napper, '30'], napper);
    expect(identity.ofProcess(copy, ['sleep'])).toBe('sleep');
    // Renamed away after it started: its running binary is still read through /proc.
    fs.renameSync(napper, `${napper}-moved`);
    expect(identity.ofProcess(copy, ['sleep'])).toBe('sleep');
    const loaded = await started([LOADER, '--argv0', 'zz', sleep, '30'], sleep);
    expect(fs.readlinkSync(`/proc/${loaded}/exe`)).not.toMatch(/sleep/);
    expect(identity.ofProcess(loaded, ['sleep'])).toBe('sleep');
    expect(identity.ofProcess(process.pid, ['sleep'])).toBeUndefined();
  });

  it('knows a running script by the script its interpreter was given: a link or a copy', async () => {
    // The denied program is a script on PATH; it runs through a link and as a copy.
    const script = path.join(dir, 'bin', 'diary');
    fs.writeFileSync(script, 'import time\ntime.sleep(30)\n', { mode: 0o755 });
    const link = path.join(dir, 'other', 'journal');
    fs.symlinkSync(script, link);
    const copy = path.join(dir, 'other', 'journal-copy.py');
    fs.copyFileSync(script, copy);
    const python = fs.realpathSync('/usr/bin/python3');
    const byLink = await started([python, '-u', link], python);
    expect(identity.ofProcess(byLink, ['gedit', 'diary'])).toBe('diary');
    const byCopy = await started([python, copy], python);
    expect(identity.ofProcess(byCopy, ['diary'])).toBe('diary');
    // Named by the link's name too, as the program's file name is.
    expect(identity.ofProcess(byLink, ['jour*'])).toBe('jour*');
    // Relative to the process's working directory.
    const child = spawn(python, ['journal-copy.py'], { cwd: path.dirname(copy), stdio: 'ignore' });
    children.push(child);
    while (fs.readlinkSync(`/proc/${child.pid}/exe`) !== python) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(identity.ofProcess(child.pid as number, ['diary'])).toBe('diary');
    // Another script of the same interpreter is not it.
    const other = path.join(dir, 'other', 'other.py');
    fs.writeFileSync(other, 'import time\ntime.sleep(30)  # another\n');
    const unrelated = await started([python, other], python);
    expect(identity.ofProcess(unrelated, ['diary'])).toBeUndefined();
  });

  it('knows a denied script read from stdin, a /dev/fd path, code that names it, or a loader script', async () => {
    const script = path.join(dir, 'bin', 'ledger');
    fs.writeFileSync(script, '#!/usr/bin/python3\nimport time\ntime.sleep(30)\n', { mode: 0o755 });
    const python = fs.realpathSync('/usr/bin/python3');
    const run = async (args: string[], stdio: Array<'ignore' | 'pipe' | number>) => {
      const child = spawn(python, args, { stdio, cwd: dir });
      children.push(child);
      while (fs.readlinkSync(`/proc/${child.pid}/exe`) !== python) {
        await new Promise((r) => setTimeout(r, 10));
      }
      return child;
    };
    const fd = fs.openSync(script, 'r');
    try {
      // `python3 - < ledger`, `python3 < ledger`, `python3 /dev/fd/3 3< ledger`.
      for (const [args, stdio] of [
        [['-'], [fd, 'ignore', 'ignore']],
        [[], [fd, 'ignore', 'ignore']],
        [['/dev/fd/3'], ['ignore', 'ignore', 'ignore', fd]],
      ] as const) {
        const child = await run([...args], [...stdio]);
        expect(identity.ofProcess(child.pid as number, ['gedit', 'ledger']), args.join(' ')).toBe(
          'ledger',
        );
      }
    } finally {
      fs.closeSync(fd);
    }
    // Code that names the script by path, relative or absolute.
    const code = await run(
      ['-c', "exec(open('bin/ledger').read())"],
      ['ignore', 'ignore', 'ignore'],
    );
    expect(identity.ofProcess(code.pid as number, ['ledger'])).toBe('ledger');
    // A one-line script that loads it.
    const loader = path.join(dir, 'other', 'loader.py');
    fs.writeFileSync(loader, `exec(open(${JSON.stringify(script)}).read())\n`);
    const loaded = await run([loader], ['ignore', 'ignore', 'ignore']);
    expect(identity.ofProcess(loaded.pid as number, ['ledger'])).toBe('ledger');
    // Text from a pipe, or code naming nothing: unknown, so taken for the denied script...
    const piped = await run(['-'], ['pipe', 'ignore', 'ignore']);
    expect(identity.ofProcess(piped.pid as number, ['ledger'])).toBe('ledger');
    const bare = await run(['-c', 'import time; time.sleep(30)'], ['ignore', 'ignore', 'ignore']);
    expect(identity.ofProcess(bare.pid as number, ['gedit', 'ledger'])).toBe('ledger');
    // Not as a process that started others (a shell running -c code): judged by what it runs.
    expect(identity.ofProcess(bare.pid as number, ['ledger'], 'allowed')).toBeUndefined();
    // ... only when the deny list names a script: a binary, or a name that is nowhere.
    expect(identity.ofProcess(piped.pid as number, ['vault', 'not-installed'])).toBeUndefined();
    expect(identity.ofProcess(bare.pid as number, ['vault'])).toBeUndefined();
    // A script file of its own that names no denied file is judged by that file alone.
    const own = path.join(dir, 'other', 'own.py');
    fs.writeFileSync(own, "import time\nopen('/etc/hostname').close()\ntime.sleep(30)\n");
    const mine = await run([own], ['ignore', 'ignore', 'ignore']);
    expect(identity.ofProcess(mine.pid as number, ['ledger'])).toBeUndefined();
  });

  it('knows the dynamic loader under another name', () => {
    const renamed = path.join(dir, 'other', 'helper');
    fs.copyFileSync(LOADER, renamed);
    expect(identity.isLoader(renamed)).toBe(true);
    expect(identity.isLoader(LOADER)).toBe(true);
    expect(identity.isLoader(sleep)).toBe(false);
  });
});
