/**
 * A web fixture page served over HTTP on 127.0.0.1, with the page's own log of its state:
 * the page posts its JSON lines to /event (as a fixture app prints them to stdout), and
 * takes commands ("reset", "ping") as server-sent events on /control. A browser test
 * reads what the page itself saw, not what the accessibility tree or our summary says.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { packageRoot } from '../../../src/harness/session.js';
import { pollUntil } from '../../../src/desktop/procs.js';

export type PageEvent = Record<string, unknown>;

export interface PageServer {
  /** The page's address: http://127.0.0.1:<port>/<page>. */
  readonly url: string;
  /** Everything the page has posted so far, in order. */
  readonly events: PageEvent[];
  /** The first event from index `from` on that matches, once the page has posted it. */
  waitFor(pred: (e: PageEvent) => boolean, from?: number, timeoutMs?: number): Promise<PageEvent>;
  /** Sends a command to every open copy of the page (false: none is listening yet). */
  send(command: string): boolean;
  close(): Promise<void>;
}

/** Serves test/fixtures/web/<page> and collects what it posts. */
export async function servePage(page: string): Promise<PageServer> {
  const file = path.join(packageRoot(), 'test', 'fixtures', 'web', page);
  const html = fs.readFileSync(file);
  const events: PageEvent[] = [];
  const listeners = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === `/${page}`) {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
      res.end(html);
    } else if (req.method === 'POST' && req.url === '/event') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          events.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as PageEvent);
          res.writeHead(204).end();
        } catch {
          res.writeHead(400).end();
        }
      });
    } else if (req.method === 'GET' && req.url === '/control') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write(': connected\n\n');
      listeners.add(res);
      req.on('close', () => listeners.delete(res));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${page}`,
    events,
    waitFor: async (pred, from = 0, timeoutMs = 15_000) =>
      pollUntil(() => events.slice(from).find(pred) ?? null, {
        timeoutMs,
        what: `the page to post a matching event (it posted: ${JSON.stringify(events.slice(from)).slice(0, 600)})`,
      }),
    send(command) {
      for (const res of listeners) res.write(`event: ${command}\ndata: ${command}\n\n`);
      return listeners.size > 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of listeners) res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
