/** Reads a list from the system's libatspi (through python3-gi), or null when not installed. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const PY = '/usr/bin/python3';

/** `expression` is Python over `Atspi` that evaluates to a JSON-able list of strings. */
export function systemAtspiList(expression: string): string[] | null {
  if (!fs.existsSync(PY)) return null;
  try {
    const out = execFileSync(
      PY,
      [
        '-c',
        'import gi, json\n' +
          'gi.require_version("Atspi", "2.0")\n' +
          'from gi.repository import Atspi\n' +
          `print(json.dumps(${expression}))`,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    return JSON.parse(out) as string[];
  } catch {
    return null;
  }
}
