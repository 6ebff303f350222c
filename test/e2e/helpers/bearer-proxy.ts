/**
 * A loopback HTTP proxy that adds one Authorization header and forwards everything else
 * unchanged, Host and Origin included, streaming both ways (SSE responses too): the
 * conformance CLI cannot send a bearer token, and the server's DNS-rebinding checks must
 * still see what the CLI sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  url: string;
  close(): Promise<void>;
}

export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`bearer proxy: ${err.message}`);
    });
    // The client went away (e.g. it cancelled an SSE stream): so does the upstream request.
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${to.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
