/**
 * ax_run_script through the SDK client over an in-memory transport: listed in full mode
 * only, and run or refused as the platform's scripting capability says (a fake platform
 * with JXA stands in for macOS; one without stands in for Linux).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, InMemoryTransport } from '../../src/harness/mcp.js';
import { createServer } from '../../src/server.js';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { DEFAULT_POLICY, type Mode } from '../../src/guard/policy.js';
import type { Desktop, ScriptLanguage, ScriptingSupport } from '../../src/platform/desktop.js';

const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-script-test-'));
afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }));

/** A platform that is only its scripting facility; `ran` records what it was asked to run. */
function scriptingDesktop(scripting: ScriptingSupport | undefined, platform = 'fixture') {
  const ran: Array<{ language: ScriptLanguage; script: string }> = [];
  const desktop = {
    platform,
    scripting,
    runScript: async (language: ScriptLanguage, script: string) => {
      ran.push({ language, script });
      return `ran ${script.length} chars\nsecond line`;
    },
    close: async () => undefined,
  };
  return { desktop: desktop as unknown as Desktop, ran };
}

async function connect(mode: Mode, desktop?: Desktop) {
  const handle = createServer(
    () => (desktop ? Promise.resolve(desktop) : Promise.reject(new Error('no desktop here'))),
    {
      ...DEFAULT_CONFIG,
      outDir,
      screenshots: 'off',
      policy: { ...DEFAULT_POLICY, mode },
    },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await handle.server.connect(serverSide);
  const client = new Client({ name: 'script-test', version: '0' });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await handle.close();
    },
  };
}

function readOr(file: string): string {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as Array<{ type: string; text?: string }>)
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

describe('ax_run_script listing', () => {
  it.each([
    ['full', true],
    ['safe', false],
    ['read-only', false],
  ] as const)('in %s mode it is listed: %s (the audit always is)', async (mode, listed) => {
    const s = await connect(mode);
    const names = (await s.client.listTools()).tools.map((t) => t.name);
    await s.close();
    expect(names.includes('ax_run_script')).toBe(listed);
    expect(names).toContain('ax_a11y_audit');
  });

  it('is annotated as neither read-only nor idempotent', async () => {
    const s = await connect('full');
    const tool = (await s.client.listTools()).tools.find((t) => t.name === 'ax_run_script');
    await s.close();
    expect(tool?.annotations).toMatchObject({ readOnlyHint: false });
    expect(tool?.annotations?.idempotentHint).not.toBe(true);
  });
});

describe('ax_run_script calls', () => {
  it('on a platform without scripting, is an error that says why and what to use', async () => {
    const linux = scriptingDesktop(
      {
        languages: [],
        reason: 'there is no native accessibility scripting facility like AppleScript/JXA',
      },
      'linux',
    );
    const s = await connect('full', linux.desktop);
    const r = await s.client.callTool({
      name: 'ax_run_script',
      arguments: { script: 'Application("Finder").name()', language: 'jxa' },
    });
    await s.close();
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(
      'unavailable on Linux: there is no native accessibility scripting facility like AppleScript/JXA; use ax_workflow or the ax_* tools',
    );
    expect(linux.ran).toEqual([]);
  });

  it('records the call in the audit log without the script text', async () => {
    const mac = scriptingDesktop({ languages: ['jxa'] });
    const s = await connect('full', mac.desktop);
    const secret = 'keystroke "hunter2-not-for-logs"';
    await s.client.callTool({
      name: 'ax_run_script',
      arguments: { script: secret, language: 'jxa' },
    });
    await s.close();
    const log = path.join(outDir, 'audit.jsonl');
    // The log is appended in the background: wait (bounded) for the record to land.
    for (let i = 0; i < 50 && !readOr(log).includes('ax_run_script'); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const text = readOr(log);
    expect(text).toContain('"tool":"ax_run_script"');
    expect(text).toContain('"script":{"masked":"text"}');
    expect(text).not.toContain('hunter2');
  });

  it('refuses a bad argument before asking the platform', async () => {
    const mac = scriptingDesktop({ languages: ['jxa'] });
    const s = await connect('full', mac.desktop);
    const empty = await s.client.callTool({
      name: 'ax_run_script',
      arguments: { script: '  ', language: 'jxa' },
    });
    const lang = await s.client.callTool({
      name: 'ax_run_script',
      arguments: { script: 'x', language: 'python' },
    });
    await s.close();
    expect(empty.isError).toBe(true);
    expect(lang.isError).toBe(true);
    expect(mac.ran).toEqual([]);
  });

  it('runs a language the platform has, and lists its output in the file', async () => {
    const mac = scriptingDesktop({ languages: ['jxa'] });
    const s = await connect('full', mac.desktop);
    const ok = await s.client.callTool({
      name: 'ax_run_script',
      arguments: { script: 'Application("Finder").name()', language: 'jxa' },
    });
    const other = await s.client.callTool({
      name: 'ax_run_script',
      arguments: { script: 'tell app "Finder" to name', language: 'applescript' },
    });
    await s.close();
    expect(ok.isError, textOf(ok)).toBeFalsy();
    expect(mac.ran).toEqual([{ language: 'jxa', script: 'Application("Finder").name()' }]);
    const file = (ok.structuredContent as { file?: string }).file;
    expect(fs.readFileSync(file ?? '', 'utf8')).toContain('ran 28 chars');
    expect(other.isError).toBe(true);
    expect(textOf(other)).toContain('applescript is not supported (it runs jxa)');
  });
});
