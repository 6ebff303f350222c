/**
 * The tools/list answer a client pays for on every session: its size, and that every
 * parameter says what it takes. Measured through the SDK client over an in-memory
 * transport (the same JSON a stdio client reads; the desktop is never opened).
 */
import { describe, expect, it } from 'vitest';
import { Client, InMemoryTransport } from '../../src/harness/mcp.js';
import { createServer } from '../../src/server.js';
import { DEFAULT_CONFIG } from '../../src/config.js';

const MAX_TOOLS_LIST_BYTES = 25 * 1024;

async function listTools() {
  const handle = createServer(() => Promise.reject(new Error('no desktop in this test')), {
    ...DEFAULT_CONFIG,
    outDir: '/nonexistent-axpage-test',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await handle.server.connect(serverSide);
  const client = new Client({ name: 'tools-list-test', version: '0' });
  await client.connect(clientSide);
  const result = await client.listTools();
  await client.close();
  await handle.close();
  return result;
}

interface JsonSchema {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  [key: string]: unknown;
}

describe('tools/list', () => {
  it(`is under ${MAX_TOOLS_LIST_BYTES} bytes`, async () => {
    const result = await listTools();
    const bytes = Buffer.byteLength(JSON.stringify(result));
    console.log(`tools/list: ${result.tools.length} tools, ${bytes} bytes`);
    expect(result.tools.length).toBeGreaterThan(10);
    expect(bytes).toBeLessThan(MAX_TOOLS_LIST_BYTES);
  });

  it('describes every parameter of every tool', async () => {
    const { tools } = await listTools();
    const undescribed: string[] = [];
    for (const tool of tools) {
      const props = (tool.inputSchema as JsonSchema).properties ?? {};
      for (const [name, schema] of Object.entries(props)) {
        if (!schema.description?.trim()) undescribed.push(`${tool.name}.${name}`);
      }
    }
    expect(undescribed).toEqual([]);
  });

  it('carries no integer-range noise (±2^53) in any schema', async () => {
    const json = JSON.stringify(await listTools());
    expect(json.split('9007199254740991').length - 1).toBe(0);
  });

  it('gives every tool a title, annotations and an output schema', async () => {
    const { tools } = await listTools();
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      // Every tool reads or drives apps that are not axpage's own.
      expect(tool.annotations?.openWorldHint, tool.name).toBe(true);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
  });

  it('marks reads read-only and actions destructive', async () => {
    const { tools } = await listTools();
    // A hint left out means MCP's default (spec: ToolAnnotations); the listing leaves out
    // what equals it, so read the hints as a client does.
    const defaults = {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    };
    const hints = (name: string) => {
      const tool = tools.find((t) => t.name === name);
      expect(tool, name).toBeDefined();
      return { ...defaults, ...tool!.annotations };
    };
    expect(hints('ax_get_tree')).toMatchObject({ readOnlyHint: true });
    expect(hints('ax_click')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(hints('ax_set_value')).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(hints('ax_connect')).toMatchObject({ destructiveHint: false, idempotentHint: true });
    // Every tool says whether it only reads, explicitly.
    for (const tool of tools) {
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
    }
  });
});
