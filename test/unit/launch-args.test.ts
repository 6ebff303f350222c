/** ax_launch_app's command argument: split like a shell would, with no shell to run it. */
import { describe, expect, it } from 'vitest';
import { commandArgv, splitCommand } from '../../src/actions/launch.js';
import { AxError } from '../../src/errors.js';

describe('splitCommand', () => {
  it('splits on blanks and honours quotes and backslashes as sh does', () => {
    expect(splitCommand('mousepad')).toEqual(['mousepad']);
    expect(splitCommand('  mousepad   /tmp/a.txt\t-x ')).toEqual(['mousepad', '/tmp/a.txt', '-x']);
    expect(splitCommand(`app 'a b' "c d" e\\ f`)).toEqual(['app', 'a b', 'c d', 'e f']);
    expect(splitCommand(`app 'it''s' "say \\"hi\\" \\$5 \\\\" x"y"'z'`)).toEqual([
      'app',
      'its',
      'say "hi" $5 \\',
      'xyz',
    ]);
    expect(splitCommand(`app '' ""`)).toEqual(['app', '', '']);
    // Inside single quotes nothing is special.
    expect(splitCommand(`app '$HOME | x'`)).toEqual(['app', '$HOME | x']);
  });

  it('refuses what only a shell could do, saying so', () => {
    for (const line of [
      'app | grep x',
      'app > out.txt',
      'app; rm -rf x',
      'app && other',
      'app $HOME',
      'app `id`',
      'app (x)',
      '~/bin/app',
      'DISPLAY=:1 app',
    ]) {
      expect(() => splitCommand(line), line).toThrow(AxError);
      expect(() => splitCommand(line), line).toThrow(/no shell runs the command/);
    }
    expect(() => splitCommand(`app 'open`)).toThrow(/unclosed single quote/);
    expect(() => splitCommand(`app "open`)).toThrow(/unclosed double quote/);
    expect(() => splitCommand('app \\')).toThrow(/trailing backslash/);
    // Quoted, the same characters are plain text.
    expect(splitCommand(`app "a|b" 'x>y' "~/z"`)).toEqual(['app', 'a|b', 'x>y', '~/z']);
  });
});

describe('commandArgv', () => {
  it('takes an argv array as it is, and splits a string', () => {
    expect(commandArgv(['app', 'a b', '$x'])).toEqual(['app', 'a b', '$x']);
    expect(commandArgv('app "a b"')).toEqual(['app', 'a b']);
  });

  it('refuses an empty command and NUL bytes', () => {
    for (const bad of ['', '   ', [], [''], ['app', 'a\0b']]) {
      expect(() => commandArgv(bad), JSON.stringify(bad)).toThrow(AxError);
    }
  });
});
