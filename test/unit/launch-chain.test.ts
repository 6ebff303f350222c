/**
 * What a launch really runs: symlinks followed, #! interpreters, the command env runs,
 * and launchers whose command cannot be followed. On files made here and the system's
 * own /bin/sh, /usr/bin/env and /usr/bin/python3.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChainError,
  envCommand,
  loaderCommand,
  resolveChain,
  wrapperOf,
} from '../../src/platform/linux/launch-chain.js';

let dir: string;
let env: NodeJS.ProcessEnv;
const sh = fs.realpathSync('/bin/sh');
const python = fs.realpathSync('/usr/bin/python3');

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-chain-'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  // A link to a link to the shell, under a harmless name.
  fs.symlinkSync('/bin/sh', path.join(bin, 'notes'));
  fs.symlinkSync('notes', path.join(bin, 'editor'));
  fs.writeFileSync(path.join(bin, 'tool'), '#!/usr/bin/env python3\nprint(1)\n', { mode: 0o755 });
  fs.writeFileSync(path.join(bin, 'split'), '#!/usr/bin/env -S python3 -u\n', { mode: 0o755 });
  fs.writeFileSync(path.join(bin, 'direct'), '#!/bin/sh -e\necho\n', { mode: 0o755 });
  fs.symlinkSync('loop-b', path.join(bin, 'loop-a'));
  fs.symlinkSync('loop-a', path.join(bin, 'loop-b'));
  env = { PATH: `${bin}:/usr/bin:/bin` };
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('resolveChain', () => {
  it('follows every symlink hop to the real file, naming each', () => {
    const chain = resolveChain(['editor'], env);
    expect(chain.executable).toBe(sh);
    expect(chain.programs).toEqual(
      expect.arrayContaining(['editor', 'notes', 'sh', path.basename(sh)]),
    );
    expect(chain.wrapper).toBeUndefined();
  });

  it('takes a #! script interpreter, through env and env -S', () => {
    for (const script of ['tool', 'split']) {
      const chain = resolveChain([script], env);
      expect(chain.executable).toBe(path.join(dir, 'bin', script));
      expect(chain.programs).toEqual(
        expect.arrayContaining([script, 'env', 'python3', path.basename(python)]),
      );
      expect(chain.executables).toContain(python);
    }
    expect(resolveChain(['direct'], env).programs).toContain('sh');
  });

  it('takes the script an interpreter is given as a program: its names and real file', () => {
    const link = path.join(dir, 'bin', 'alias');
    fs.symlinkSync(path.join(dir, 'bin', 'tool'), link);
    for (const argv of [
      [python, link],
      ['python3', '-u', '-W', 'ignore', link, '--flag'],
      ['/usr/bin/env', 'python3', link],
    ]) {
      const chain = resolveChain(argv, env);
      expect(chain.executable).not.toBe(path.join(dir, 'bin', 'tool'));
      expect(chain.programs).toEqual(expect.arrayContaining(['alias', 'tool']));
      expect(chain.executables).toEqual(
        expect.arrayContaining([python, path.join(dir, 'bin', 'tool')]),
      );
    }
    // Code in an argument is no script; a missing file is none either (python fails on it).
    expect(resolveChain(['python3', '-c', 'pass', link], env).programs).not.toContain('tool');
    expect(resolveChain(['python3', path.join(dir, 'none.py')], env).executables).toEqual([python]);
  });

  it('follows what env runs, with the PATH env was given', () => {
    expect(resolveChain(['/usr/bin/env', 'sh', '-c', 'true'], env)).toMatchObject({
      executable: fs.realpathSync('/usr/bin/env'),
      programs: expect.arrayContaining(['env', 'sh']) as unknown,
      wrapper: 'sh -c',
    });
    const viaPath = resolveChain(['env', '-i', `PATH=${dir}/bin`, 'A=1', 'notes'], env);
    expect(viaPath.programs).toEqual(expect.arrayContaining(['notes', 'sh']));
  });

  it('reports launchers whose command it cannot follow', () => {
    expect(resolveChain(['xargs', 'sh', '-c', 'true'], env).wrapper).toBe('xargs');
    expect(resolveChain(['find', '/', '-exec', 'sh', ';'], env).wrapper).toBe('find');
    expect(resolveChain(['nice', 'sh'], env).wrapper).toBe('nice');
    expect(resolveChain(['/usr/bin/python3', '-c', 'pass'], env).wrapper).toBe('python3 -c');
    expect(resolveChain(['/usr/bin/python3', '/x.py'], env).wrapper).toBeUndefined();
  });

  it('follows the dynamic loader, under its name or a copy, past its options to its program', () => {
    const loader = '/lib64/ld-linux-x86-64.so.2';
    const renamed = path.join(dir, 'bin', 'helper');
    fs.copyFileSync(loader, renamed);
    fs.chmodSync(renamed, 0o755);
    for (const first of [loader, renamed]) {
      const chain = resolveChain([first, '--argv0', 'zz', '--library-path', '/x', sh, '-e'], env);
      expect(chain.executable).toBe(fs.realpathSync(first));
      expect(chain.programs).toContain(path.basename(sh));
      expect(chain.executables).toContain(sh);
      expect(chain.wrapper).toBeUndefined();
    }
    // Through the loader, to a script: its interpreter counts too.
    expect(resolveChain([loader, path.join(dir, 'bin', 'direct')], env).executables).toContain(sh);
    expect(resolveChain([loader, '--preload', '/x.so', sh], env).wrapper).toMatch(
      /--preload \(the dynamic loader loading code/,
    );
    expect(() => resolveChain([loader, 'sh'], env)).toThrow(/not a full path/);
    expect(() => resolveChain([loader, '--frob', sh], env)).toThrow(/option --frob/);
    expect(() => resolveChain([loader, '--argv0'], env)).toThrow(/needs a value/);
    expect(() => resolveChain([loader], env)).toThrow(/names no program/);
  });

  it('refuses what cannot run or be worked out, saying why', () => {
    expect(() => resolveChain(['no-such-program'], env)).toThrow(/not on PATH/);
    expect(() => resolveChain(['/etc/passwd'], env)).toThrow(/not an executable file/);
    expect(() => resolveChain(['bin/sh'], env)).toThrow(/relative path/);
    expect(() => resolveChain(['loop-a'], env)).toThrow(ChainError);
    expect(() => resolveChain(['env', '--frobnicate', 'sh'], env)).toThrow(/env option/);
  });
});

describe('envCommand', () => {
  it('skips options and settings; no command is none', () => {
    expect(envCommand(['-u', 'X', '-C', '/tmp', '--', 'A=1', 'prog', '-x'], {})).toEqual({
      argv: ['prog', '-x'],
      env: { A: '1', PATH: '/usr/local/bin:/usr/bin:/bin' },
    });
    expect(envCommand(['-S', 'a  b', 'c'], { PATH: '/p' })?.argv).toEqual(['a', 'b', 'c']);
    expect(envCommand(['A=1'], {})).toBeUndefined();
  });
});

describe('loaderCommand', () => {
  it('skips the options, stops at --, runs nothing after an information option', () => {
    expect(loaderCommand('ld.so', ['--list', '--inhibit-cache', '/p', '-x'])).toEqual({
      argv: ['/p', '-x'],
    });
    expect(loaderCommand('ld.so', ['--', '/p'])).toEqual({ argv: ['/p'] });
    expect(loaderCommand('ld.so', ['--version'])).toEqual({});
    expect(loaderCommand('ld.so', ['--audit', '/a.so', '/p']).wrapper).toMatch(/--audit/);
  });
});

describe('wrapperOf', () => {
  it('a shell only with -c, an interpreter only with its code option', () => {
    expect(wrapperOf('bash', ['-lc', 'x'])).toBe('bash -lc');
    expect(wrapperOf('dash', ['/script', '-c'])).toBeUndefined();
    expect(wrapperOf('perl', ['-e', 'x'])).toBe('perl -e');
    expect(wrapperOf('gawk', ['BEGIN{}'])).toBe('gawk');
    expect(wrapperOf('node', ['--eval=1'])).toBe('node --eval=1');
    expect(wrapperOf('mousepad', ['-c'])).toBeUndefined();
    expect(wrapperOf('timeout', ['5', 'x'])).toBe('timeout');
    expect(wrapperOf('xdg-open', ['/tmp/x.desktop'])).toBe('xdg-open');
    expect(wrapperOf('xterm', [])).toBe('xterm (a terminal, which runs a shell)');
  });
});
