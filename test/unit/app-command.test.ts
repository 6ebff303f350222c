/**
 * Apps named the way users start them: `firefox-esr` is Firefox's command, not its AT-SPI
 * name, and the command wins over another app's window title that mentions it.
 */
import { describe, expect, it } from 'vitest';
import { AppDirectory } from '../../src/pipeline/apps.js';
import { app, dataDesktop, win } from './helpers/pipeline-fixtures.js';

function desktop() {
  return dataDesktop({
    apps: [
      { ...app(500, 'Firefox', { active: true }), command: 'firefox-esr' },
      { ...app(600, 'crashreporter'), command: 'crashreporter' },
    ],
    windows: [
      win(500, 'Page — Mozilla Firefox', true),
      win(600, 'firefox-esr crashed: Mozilla Crash Reporter'),
    ],
    frontmost: { pid: 500, windowTitle: 'Page — Mozilla Firefox' },
  });
}

describe('AppDirectory.resolve by command', () => {
  it('finds Firefox by its command, before any window title', async () => {
    const dir = new AppDirectory();
    expect(await dir.resolve(desktop(), 'firefox-esr')).toMatchObject({
      pid: 500,
      matchedBy: 'command',
    });
    expect(await dir.resolve(desktop(), 'FIREFOX-ESR')).toMatchObject({ pid: 500 });
  });

  it('still finds Firefox by its name', async () => {
    const dir = new AppDirectory();
    expect(await dir.resolve(desktop(), 'firefox')).toMatchObject({ pid: 500, matchedBy: 'name' });
  });
});
