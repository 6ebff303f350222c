/**
 * The script file an interpreter runs, read from its arguments: past options and their
 * values; none when the code is an argument, a module runs or the input is read.
 */
import { describe, expect, it } from 'vitest';
import { isInterpreter, scriptOperand } from '../../src/platform/linux/script-operand.js';

describe('scriptOperand', () => {
  it('finds the script past options and the values they take', () => {
    expect(scriptOperand('python3.11', ['notes.py', '-x'])).toBe('notes.py');
    expect(scriptOperand('python3', ['-u', '-W', 'ignore', '-X', 'dev', '/a/b'])).toBe('/a/b');
    expect(scriptOperand('python3', ['-uW', 'ignore', 'x.py'])).toBe('x.py');
    expect(scriptOperand('python3', ['-Wignore', '-B', 'x.py'])).toBe('x.py');
    expect(scriptOperand('python3', ['--check-hash-based-pycs', 'never', 'x.py'])).toBe('x.py');
    expect(scriptOperand('perl', ['-w', '-Ilib', 'tool.pl'])).toBe('tool.pl');
    expect(scriptOperand('ruby', ['-r', 'json', 'app.rb'])).toBe('app.rb');
    expect(scriptOperand('node', ['--require', 'm', '--title=x', 'app.js'])).toBe('app.js');
    expect(scriptOperand('bash', ['-e', '+x', '-o', 'pipefail', 'run.sh'])).toBe('run.sh');
    expect(scriptOperand('bash', ['--', '-odd-name'])).toBe('-odd-name');
    expect(scriptOperand('php', ['-d', 'a=b', '-f', 'page.php'])).toBe('page.php');
    expect(scriptOperand('lua5.4', ['-l', 'mod', 'x.lua'])).toBe('x.lua');
  });

  it('finds none for code in an argument, a module, the input, or no interpreter', () => {
    expect(scriptOperand('python3', ['-c', 'print(1)', 'x.py'])).toBeUndefined();
    expect(scriptOperand('python3', ['-uc', 'print(1)'])).toBeUndefined();
    expect(scriptOperand('python3', ['-m', 'http.server'])).toBeUndefined();
    expect(scriptOperand('python3', ['-'])).toBeUndefined();
    expect(scriptOperand('python3', [])).toBeUndefined();
    expect(scriptOperand('sh', ['-c', 'x', 'y'])).toBeUndefined();
    expect(scriptOperand('node', ['-e', 'x'])).toBeUndefined();
    expect(scriptOperand('gedit', ['notes.txt'])).toBeUndefined();
    expect(isInterpreter('python3.11')).toBe(true);
    expect(isInterpreter('gedit')).toBe(false);
  });
});
