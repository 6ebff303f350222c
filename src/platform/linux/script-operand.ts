/**
 * The script file an interpreter runs, read from its arguments: `python3 -u notes.py`,
 * `perl -w tool.pl`, `bash script`, `node app.js`. A script run by its interpreter is a
 * program of its own (the deny list names it, by its name or as a copy), whether the
 * interpreter was named in a launch or is what a running process's /proc/PID/exe says.
 * Options that take a value in the next argument are skipped with it; an option that makes
 * the program text an argument (`-c`, `-e`) or runs a module (`python3 -m`) means there is
 * no script file. Pure: it reads no file.
 */

interface Grammar {
  /** Options whose value is the next argument (when not attached: `-W ignore`, `-r mod`). */
  values: ReadonlySet<string>;
  /** Short option letters that take the rest of the cluster or the next argument as value. */
  valueLetters?: string;
  /** Short option letters after which no script file runs (code in an argument, a module). */
  noScript?: string;
  /** Long options after which no script file runs. */
  noScriptLong?: ReadonlySet<string>;
  /** Options whose value is the script file itself (`php -f file`). */
  scriptOption?: string;
  /** `+o value` (shells) takes a value too. */
  plusOptions?: boolean;
}

const SHELL: Grammar = {
  values: new Set(['--rcfile', '--init-file']),
  valueLetters: 'oO',
  noScript: 'cs',
  noScriptLong: new Set(['--command']),
  plusOptions: true,
};

/** By the interpreter's real file name. */
const GRAMMARS: Array<{ program: RegExp; grammar: Grammar }> = [
  {
    program: /^python[\d.]*$/,
    grammar: {
      values: new Set(['--check-hash-based-pycs']),
      valueLetters: 'WXQ',
      noScript: 'cm',
      noScriptLong: new Set(['--help', '--version']),
    },
  },
  {
    program: /^perl[\d.]*$/,
    grammar: { values: new Set(), noScript: 'eE', noScriptLong: new Set(['--help', '--version']) },
  },
  {
    program: /^ruby[\d.]*$/,
    grammar: { values: new Set(), valueLetters: 'ICEFrx', noScript: 'e' },
  },
  {
    program: /^(?:node|nodejs)$/,
    grammar: {
      values: new Set([
        '-r',
        '--require',
        '--import',
        '--loader',
        '--experimental-loader',
        '-C',
        '--conditions',
        '--input-type',
        '--title',
        '--env-file',
        '--inspect-port',
        '--disable-warning',
      ]),
      noScript: 'ep',
      noScriptLong: new Set(['--eval', '--print', '--help', '--version', '--test']),
    },
  },
  {
    program: /^php[\d.]*$/,
    grammar: {
      values: new Set(['-c', '-d', '-z', '-t', '-S']),
      noScript: 'rRBEHvhi',
      scriptOption: '-f',
    },
  },
  {
    program: /^lua[\d.]*$|^luajit$/,
    grammar: { values: new Set(), valueLetters: 'l', noScript: 'ev' },
  },
  {
    program: /^(?:sh|bash|rbash|dash|ash|zsh|ksh|ksh93|mksh|pdksh|posh|yash|csh|tcsh)$/,
    grammar: SHELL,
  },
  {
    program: /^fish$/,
    grammar: {
      values: new Set(['--init-command']),
      valueLetters: 'C',
      noScript: 'c',
      noScriptLong: new Set(['--command']),
    },
  },
  { program: /^(?:tclsh|wish)[\d.]*$|^gjs$|^Rscript$|^pwsh$/, grammar: { values: new Set() } },
];

/** Whether a program (by its real file's name) is an interpreter that runs script files. */
export function isInterpreter(base: string): boolean {
  return GRAMMARS.some((g) => g.program.test(base));
}

/**
 * Where an interpreter's program text comes from, by its arguments: a file (`path`, which
 * may be `/dev/fd/3`), its standard input (`-`, or no operand), or an argument (`-c code`,
 * `-e code`) or module (`-m mod`) given as `code`, the option's value as far as it is one.
 * Undefined when the program is no interpreter known here.
 */
export type ScriptSource =
  { kind: 'file'; path: string } | { kind: 'stdin' } | { kind: 'code'; code: string };

export function scriptSource(base: string, args: readonly string[]): ScriptSource | undefined {
  const grammar = GRAMMARS.find((g) => g.program.test(base))?.grammar;
  if (!grammar) return undefined;
  const file = (arg: string | undefined): ScriptSource =>
    arg === undefined || arg === '-' || arg === ''
      ? { kind: 'stdin' }
      : { kind: 'file', path: arg };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return file(args[i + 1]);
    if (grammar.scriptOption !== undefined && a === grammar.scriptOption) return file(args[i + 1]);
    if (grammar.plusOptions && a.startsWith('+') && a.length > 1) {
      // `+x` turns an option off; `+o name` takes a value.
      if (/^\+[oO]$/.test(a)) i++;
      continue;
    }
    if (a === '-' || !a.startsWith('-')) return file(a);
    if (a.startsWith('--')) {
      const name = a.split('=')[0];
      if (grammar.noScriptLong?.has(name)) {
        const eq = a.indexOf('=');
        return { kind: 'code', code: eq >= 0 ? a.slice(eq + 1) : (args[i + 1] ?? '') };
      }
      if (grammar.values.has(name) && !a.includes('=')) i++;
      continue;
    }
    if (grammar.values.has(a)) {
      i++;
      continue;
    }
    // A cluster of short options: `-uB`, `-Wignore`, `-uW ignore`, `-ic 'code'`.
    for (let j = 1; j < a.length; j++) {
      const letter = a[j];
      if (grammar.noScript?.includes(letter)) {
        return { kind: 'code', code: j < a.length - 1 ? a.slice(j + 1) : (args[i + 1] ?? '') };
      }
      if (grammar.valueLetters?.includes(letter)) {
        if (j === a.length - 1) i++;
        break;
      }
    }
  }
  return { kind: 'stdin' };
}

/**
 * The script file `args` (the interpreter's arguments, argv[0] left out) make it run; undefined
 * when there is none: the code is an argument, a module runs, or it reads its input.
 */
export function scriptOperand(base: string, args: readonly string[]): string | undefined {
  const source = scriptSource(base, args);
  return source?.kind === 'file' ? source.path : undefined;
}
