/**
 * The MCP surface a client sees, through the SDK's client over stdio on a real desktop:
 * tools/list's size and descriptions, resource_link blocks pointing at the files the call
 * wrote, log messages that follow logging/setLevel, and progress when a call asks for it.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
} from '../../src/harness/mcp.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';

let session: Session;
let form: LaunchedApp;
const logs: Array<{ level: string; data: unknown }> = [];

beforeAll(async () => {
  // Walks are cut at 6 elements: every walk of the form (13 showing) is a truncated one.
  session = await Session.start({ serverEnv: { AXPAGE_MAX_ELEMENTS: '6' } });
  session.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push({ level: n.params.level, data: n.params.data });
  });
  form = await session.launchFixture('form.py');
});

afterAll(async () => {
  await session?.close();
});

interface Link {
  type: string;
  uri?: string;
  name?: string;
  mimeType?: string;
}

describe('tools/list', () => {
  it('is under 25 KiB on the wire and describes every parameter', async () => {
    const list = await session.client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify(list));
    console.log(`tools/list over stdio: ${list.tools.length} tools, ${bytes} bytes`);
    expect(bytes).toBeLessThan(25 * 1024);
    for (const tool of list.tools) {
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${tool.name}.${name}`).toMatch(
          /\S/,
        );
      }
    }
  });
});

describe('resource_link blocks', () => {
  it('point at the tree file and the PNG the call wrote, readable with resources/read', async () => {
    const result = await session.client.callTool({
      name: 'ax_get_tree',
      arguments: { app: form.pid },
    });
    const links = (result.content as Link[]).filter((c) => c.type === 'resource_link');
    expect(links.map((l) => l.mimeType).sort()).toEqual(['image/png', 'text/plain']);
    const structured = result.structuredContent as { file: string; screenshot: string };
    for (const link of links) {
      // A client without access to the server's files reads what the link names over MCP.
      expect(link.uri).toMatch(/^axpage:\/\/pair\//);
      const file = link.mimeType === 'image/png' ? structured.screenshot : structured.file;
      expect(link.name).toBe(file.slice(file.lastIndexOf('/') + 1));
      const read = await session.client.readResource({ uri: link.uri ?? '' });
      expect(read.contents).toHaveLength(1);
      const [content] = read.contents as Array<{ mimeType?: string; text?: string; blob?: string }>;
      expect(content.mimeType).toBe(link.mimeType);
      const bytes =
        content.text !== undefined
          ? Buffer.from(content.text, 'utf8')
          : Buffer.from(content.blob ?? '', 'base64');
      // The same bytes as the file on disk: the tree names the form's window, the PNG is one.
      expect(bytes.equals(fs.readFileSync(file)), file).toBe(true);
      if (link.mimeType === 'image/png') {
        expect(bytes.subarray(0, 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
      } else {
        expect(bytes.toString('utf8')).toContain('[AXWindow');
      }
    }
  });

  it('refuses a link-shaped URI that names no file of the dir, saying what to read', async () => {
    await expect(
      session.client.readResource({ uri: 'axpage://pair/1700000000000_get_tree.marks.png' }),
    ).rejects.toThrow(/no file .*marks\.png.*axpage:\/\/artifacts/);
    await expect(
      session.client.readResource({ uri: 'axpage://pair/..%2Fetc%2Fpasswd.txt' }),
    ).rejects.toThrow(/not a pair id/);
  });
});

describe('logging', () => {
  it('sends a warning for a truncated walk at level warning, and none at level error', async () => {
    await session.client.setLoggingLevel('warning');
    logs.length = 0;
    const cut = await session.call('ax_get_tree', { app: form.pid });
    expect(cut.text).toMatch(/truncated/);
    const warnings = logs.filter((l) => l.level === 'warning');
    expect(warnings.map((l) => String(l.data)).join('\n')).toMatch(/cut short: .*6/);

    await session.client.setLoggingLevel('error');
    logs.length = 0;
    const again = await session.call('ax_get_tree', { app: form.pid });
    expect(again.text).toMatch(/truncated/);
    // A ping after the call: every notification sent before its answer has arrived.
    await session.client.ping();
    expect(logs).toEqual([]);
  });
});

describe('progress', () => {
  it('reports progress on a wait when the client sends a progressToken, with the total', async () => {
    const seen: Array<{ progress: number; total?: number }> = [];
    const result = await session.client.callTool(
      {
        name: 'ax_wait_for',
        arguments: { app: form.pid, query: 'button:"No such button"', timeout_ms: 1500 },
      },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p) },
    );
    expect(JSON.stringify(result.structuredContent)).toMatch(/"satisfied":false/);
    expect(seen.length).toBeGreaterThan(1);
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i].progress).toBeGreaterThan(seen[i - 1].progress);
    }
    expect(seen.some((p) => p.total === 1500)).toBe(true);
    expect(seen.every((p) => p.total === undefined || p.progress <= p.total)).toBe(true);
  });

  it('sends none when the call carries no progressToken', async () => {
    const seen: unknown[] = [];
    session.client.setNotificationHandler(ProgressNotificationSchema, (n) => void seen.push(n));
    await session.call('ax_get_tree', { app: form.pid });
    await session.client.ping();
    expect(seen).toEqual([]);
  });
});
