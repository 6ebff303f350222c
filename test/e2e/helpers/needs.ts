/**
 * What a test needs from the machine: a program, a file, a Python module, root. Every
 * test that needs something goes through `describeNeeding` / `itNeeding`, never through a
 * bare skipIf, so that CI cannot pass with a suite silently skipped: under CI a missing
 * need is a failing test that names it (scripts/install-system-deps.sh should have put it
 * there); elsewhere the tests skip and the reason is printed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'vitest';

export interface Need {
  /** What is looked for, as a reader would name it: "gtk4-demo", "PyQt6". */
  what: string;
  /** How it gets there: "the Debian package gtk-4-examples", "run the tests as root". */
  install: string;
  present: boolean;
}

const INSTALLER = 'scripts/install-system-deps.sh';

/** Truthy CI the way CI services set it (CI=true, CI=1); CI=false and CI=0 are not CI. */
export function inCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = (env.CI ?? '').trim().toLowerCase();
  return ci !== '' && ci !== 'false' && ci !== '0';
}

/** A program found on PATH, installed by the Debian package `pkg`. */
export function program(name: string, pkg: string): Need {
  const present = (process.env.PATH ?? '/usr/bin:/bin')
    .split(':')
    .some((dir) => isExecutable(path.join(dir || '.', name)));
  return { what: name, install: debian(pkg), present };
}

/** A file at a fixed path, installed by the Debian package `pkg`. */
export function file(where: string, pkg: string): Need {
  return { what: where, install: debian(pkg), present: fs.existsSync(where) };
}

/** A module the system python (/usr/bin/python3, which the fixtures run on) can import. */
export function pythonModule(module: string, pkg: string): Need {
  let present: boolean;
  try {
    execFileSync('/usr/bin/python3', ['-c', `import ${module}`], { stdio: 'ignore' });
    present = true;
  } catch {
    present = false;
  }
  return { what: `python module ${module}`, install: debian(pkg), present };
}

/** GTK `version` ('3.0', '4.0') for the system python, through PyGObject. */
export function pythonGtk(version: '3.0' | '4.0', pkg: string): Need {
  const code = `import gi; gi.require_version('Gtk', '${version}'); from gi.repository import Gtk`;
  let present: boolean;
  try {
    execFileSync('/usr/bin/python3', ['-c', code], { stdio: 'ignore' });
    present = true;
  } catch {
    present = false;
  }
  return { what: `GTK ${version[0]} for python3`, install: debian(pkg), present };
}

/** Anything else a test found present or not, installed by the Debian package(s) `pkg`. */
export function found(what: string, pkg: string, present: boolean): Need {
  return { what, install: debian(pkg), present };
}

/** This process runs as root (what CI does). */
export function runsAsRoot(): Need {
  return {
    what: 'root',
    install: 'run the tests as root (CI does)',
    present: process.getuid?.() === 0,
  };
}

/** Every need is there. */
export function allPresent(needs: Need[]): boolean {
  return needs.every((n) => n.present);
}

/** Why the tests needing `needs` cannot run, or null when they can. */
export function missingReason(needs: Need[]): string | null {
  const missing = needs.filter((n) => !n.present);
  if (missing.length === 0) return null;
  return missing.map((n) => `${n.what} is missing (${n.install})`).join('; ');
}

/**
 * A describe block that runs only with its needs met. Without them: under CI, one failing
 * test naming what is missing; elsewhere a skipped block whose title, and a printed line,
 * say why.
 */
export function describeNeeding(needs: Need[], title: string, body: () => void): void {
  const reason = missingReason(needs);
  if (reason === null) {
    describe(title, body);
  } else if (inCI()) {
    describe(title, () => {
      it('has what it needs installed', () => {
        throw new Error(ciFailure(reason));
      });
    });
  } else {
    console.log(`skipped "${title}": ${reason}`);
    describe.skip(`${title} (skipped: ${reason})`, body);
  }
}

/** One test that runs only with its needs met; as describeNeeding, for a single test. */
export function itNeeding(
  needs: Need[],
  title: string,
  body: () => Promise<void> | void,
  timeoutMs?: number,
): void {
  const reason = missingReason(needs);
  if (reason === null) {
    it(title, body, timeoutMs);
  } else if (inCI()) {
    it(title, () => {
      throw new Error(ciFailure(reason));
    });
  } else {
    console.log(`skipped "${title}": ${reason}`);
    it.skip(`${title} (skipped: ${reason})`, body);
  }
}

function ciFailure(reason: string): string {
  return `${reason}. Under CI nothing is skipped: a missing need fails.`;
}

function debian(pkg: string): string {
  return `the Debian package ${pkg}, which ${INSTALLER} installs`;
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
