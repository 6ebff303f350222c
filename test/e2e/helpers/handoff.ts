/**
 * A handoff through our launcher fixture: it starts `childArgs` as a process of its own
 * when its "Launch Child" button is clicked. The click's result must name the child's pid
 * (as the launcher itself reports it) in app_switch; the file's app_switch section comes
 * back for the toolkit-specific checks.
 */
import fs from 'node:fs';
import { expect } from 'vitest';
import type { LaunchedApp } from '../../../src/desktop/apps.js';
import type { CallResult, Session } from '../../../src/harness/session.js';

export interface HandOff {
  launcher: LaunchedApp;
  click: CallResult;
  /** The child's pid, as the launcher reports it. */
  child: number;
  /** The tree file from its `# app_switch:` line on. */
  section: string[];
}

/** Stops the launcher itself only if the click fails; the caller stops it otherwise. */
export async function handOff(session: Session, childArgs: string[]): Promise<HandOff> {
  const launcher = await session.launchFixture('launcher.py', ['--child', ...childArgs]);
  try {
    const click = await session.call('ax_click', {
      app: launcher.pid,
      query: 'button:Launch Child',
    });
    expect(click.isError, click.text).toBe(false);
    const launched = await launcher.output!.waitForEvent((e) => e.event === 'launched');
    const child = Number(launched.pid);
    expect(click.fields.app_switch, click.text).toMatch(new RegExp(`\\(PID: ${child}\\)`));
    return { launcher, click, child, section: switchSection(click.fields.file) };
  } catch (err) {
    await launcher.stop();
    throw err;
  }
}

function switchSection(file: string): string[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.startsWith('# app_switch: '));
  return at < 0 ? [] : lines.slice(at);
}
