/**
 * A store of password fields that cannot save is never silent: the server log (stderr) and
 * the connected client (an MCP log message, level warning) hear of it, once, and the field
 * stays secret in this server's own memory. Over an in-memory transport; no desktop.
 */
import { afterAll, expect, it, vi } from 'vitest';
import {
  Client,
  InMemoryTransport,
  LoggingMessageNotificationSchema,
} from '../../src/harness/mcp.js';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { secretFields } from '../../src/pipeline/secret-fields.js';
import type * as Platform from '../../src/platform/index.js';

vi.mock('../../src/platform/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof Platform>();
  return {
    ...real,
    secretFieldStore: () => ({
      loadIfChanged: () => null,
      save: () => {
        throw new Error('X error: BadAlloc (insufficient resources for operation)');
      },
    }),
  };
});

const { createServer } = await import('../../src/server.js');

const stderr: string[] = [];
const realWrite = process.stderr.write.bind(process.stderr);
const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk, ...rest) => {
  stderr.push(String(chunk));
  return realWrite(chunk as string, ...(rest as []));
});

afterAll(() => spy.mockRestore());

it('a failing save warns the server log and the client, and the field stays secret here', async () => {
  const handle = createServer(() => Promise.reject(new Error('no desktop in this test')), {
    ...DEFAULT_CONFIG,
    outDir: '/nonexistent-axpage-test',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await handle.server.connect(serverSide);
  const client = new Client({ name: 'secret-store-warning', version: '0' });
  const logged: Array<{ level: string; data: unknown }> = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logged.push(n.params);
  });
  await client.connect(clientSide);
  try {
    secretFields.learn(4242, [':1.42/org/a11y/atspi/accessible/7']);
    expect(secretFields.has(':1.42/org/a11y/atspi/accessible/7')).toBe(true);
    const warning = /password fields seen by this server are not kept for other servers.*BadAlloc/;
    await vi.waitFor(() => {
      expect(
        logged.filter((m) => m.level === 'warning' && warning.test(String(m.data))),
      ).toHaveLength(1);
    });
    expect(stderr.filter((line) => warning.test(line))).toHaveLength(1);

    // The same failure again (the next look retries the save) is not told again.
    secretFields.learn(4242, [':1.42/org/a11y/atspi/accessible/8']);
    secretFields.has(':1.42/org/a11y/atspi/accessible/8');
    expect(stderr.filter((line) => warning.test(line))).toHaveLength(1);
  } finally {
    secretFields.forget(4242);
    await client.close();
    await handle.close();
  }
});
