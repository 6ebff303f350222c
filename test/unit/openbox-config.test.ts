/**
 * The openbox configuration of axpage's own desktop: the system one with no button bound on
 * client windows (so openbox grabs and replays no press there), everything else kept.
 * openbox (and its system configuration) is one of scripts/install-system-deps.sh.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openboxConfig } from '../../src/desktop/headless.js';

const SYSTEM = '/etc/xdg/openbox/rc.xml';

describe('openboxConfig', () => {
  it('binds no button on client windows and keeps the rest, 0600', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'obrc-'));
    try {
      const file = openboxConfig(dir)!;
      const text = fs.readFileSync(file, 'utf8');
      const client = /<context name="Client">([\s\S]*?)<\/context>/.exec(text);
      expect(client?.[1]).toBe('');
      const system = fs.readFileSync(SYSTEM, 'utf8');
      expect(/<context name="Client">([\s\S]*?)<\/context>/.exec(system)?.[1]).toMatch(/mousebind/);
      // The frame's bindings (moving, resizing by the title bar) are still there.
      expect(text).toContain('<context name="Frame">');
      expect(text.length).toBeGreaterThan(system.length / 2);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
