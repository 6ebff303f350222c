/**
 * Desktop containers under podman, for the fleet test and the fleet bench: build the images
 * (deploy/build-image.sh), start one desktop per container with its own token and artifact
 * volume, wait until its /healthz says ready, read what its cgroup says it costs. podman runs
 * with the project's containers.conf (runc, explicit ulimits), so nothing under /etc matters.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../harness/session.js';

const run = promisify(execFile);

/** The port axpage listens on inside the image (deploy/Containerfile). */
export const CONTAINER_PORT = 8939;
/** Where the image keeps the artifact dir's volume, and the token's secret file. */
export const CONTAINER_VOLUME = '/var/lib/axpage';
export const CONTAINER_TOKEN_FILE = '/run/secrets/axpage-token';
/** The uid the image runs as: the owner a volume's host dir needs. */
export const CONTAINER_UID = 1000;

export function podmanEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CONTAINERS_CONF: path.join(packageRoot(), 'deploy', 'podman', 'containers.conf'),
  };
}

export async function podman(args: string[], timeoutMs = 120_000): Promise<string> {
  const { stdout } = await run('podman', args, {
    env: podmanEnv(),
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.trim();
}

export interface FleetImages {
  /** The desktop alone (deploy/Containerfile). */
  desktop: string;
  /** The desktop with galculator and mousepad (deploy/examples/Containerfile). */
  apps: string;
}

/** Builds (or finds, by their inputs' hash) the images; needs a built dist/. */
export function buildFleetImages(): FleetImages {
  const out = execFileSync('bash', [path.join(packageRoot(), 'deploy', 'build-image.sh')], {
    env: podmanEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 15 * 60_000,
  });
  const tag = (key: string) => {
    const m = new RegExp(`^${key}=(\\S+)$`, 'm').exec(out);
    if (!m) throw new Error(`deploy/build-image.sh printed no ${key}= line:\n${out}`);
    return m[1];
  };
  return { desktop: tag('desktop'), apps: tag('apps') };
}

export interface DesktopContainerOptions {
  image: string;
  name: string;
  /** Host dir mounted as the container's volume (made and given to the image's uid). */
  volume: string;
  /** Host file holding the bearer token, mounted read-only as the secret. */
  tokenFile: string;
  /** How long to wait for /healthz to say ready. */
  readyTimeoutMs?: number;
  /** Extra `podman run` arguments (limits). */
  runArgs?: string[];
}

export interface DesktopContainer {
  name: string;
  id: string;
  /** http://127.0.0.1:<published port>/mcp */
  url: string;
  healthUrl: string;
  volume: string;
  /** From `podman run` to /healthz answering ready. */
  startMs: number;
  /** A path inside the container's volume, as the host sees it. */
  hostPath(containerPath: string): string;
  /** Memory (working set: usage less inactive file cache, as the kubelet counts) and CPU time. */
  usage(): { workingSetBytes: number; cpuNs: number };
  logs(): Promise<string>;
  /** podman stop: SIGTERM, then SIGKILL after `timeoutS`; the exit code. */
  stop(timeoutS?: number): Promise<number>;
  kill(signal: 'KILL' | 'TERM'): Promise<void>;
  remove(): Promise<void>;
}

export async function startDesktopContainer(
  opts: DesktopContainerOptions,
): Promise<DesktopContainer> {
  fs.mkdirSync(opts.volume, { recursive: true, mode: 0o700 });
  fs.chownSync(opts.volume, CONTAINER_UID, CONTAINER_UID);
  await podman(['rm', '--force', '--ignore', opts.name]);
  const started = performance.now();
  const id = await podman([
    'run',
    '--detach',
    '--name',
    opts.name,
    '--publish',
    `127.0.0.1::${CONTAINER_PORT}`,
    '--volume',
    `${opts.volume}:${CONTAINER_VOLUME}`,
    '--volume',
    `${opts.tokenFile}:${CONTAINER_TOKEN_FILE}:ro`,
    ...(opts.runArgs ?? []),
    opts.image,
  ]);
  const published = await podman(['port', opts.name, String(CONTAINER_PORT)]);
  const port = /:(\d+)\s*$/.exec(published)?.[1];
  if (!port) throw new Error(`podman port ${opts.name} said ${JSON.stringify(published)}`);
  const base = `http://127.0.0.1:${port}`;
  const container: DesktopContainer = {
    name: opts.name,
    id,
    url: `${base}/mcp`,
    healthUrl: `${base}/healthz`,
    volume: opts.volume,
    startMs: 0,
    hostPath: (p) => {
      const rel = path.posix.relative(CONTAINER_VOLUME, p);
      if (rel.startsWith('..')) throw new Error(`${p} is not in the volume ${CONTAINER_VOLUME}`);
      return path.join(opts.volume, rel);
    },
    usage: () => cgroupUsage(id),
    logs: async () => {
      const { stdout, stderr } = await run('podman', ['logs', opts.name], { env: podmanEnv() });
      return stdout + stderr;
    },
    stop: async (timeoutS = 30) => {
      await podman(['stop', '--time', String(timeoutS), opts.name], (timeoutS + 30) * 1000);
      return Number(await podman(['inspect', '--format', '{{.State.ExitCode}}', opts.name]));
    },
    kill: async (signal) => {
      await podman(['kill', '--signal', signal, opts.name]);
      await podman(['wait', opts.name]);
    },
    remove: async () => {
      await podman(['rm', '--force', '--ignore', opts.name]).catch(() => undefined);
    },
  };
  try {
    await waitReady(container, opts.readyTimeoutMs ?? 120_000);
  } catch (err) {
    const logs = await container.logs().catch(() => '');
    await container.remove();
    throw new Error(`${(err as Error).message}\ncontainer log:\n${logs}`, { cause: err });
  }
  container.startMs = performance.now() - started;
  return container;
}

/** Polls /healthz until it answers 200; each failed probe is an answer, not a timed guess. */
async function waitReady(c: DesktopContainer, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    const r = await httpGet(c.healthUrl).catch((err: unknown) => ({
      status: 0,
      body: String(err),
    }));
    if (r.status === 200) return;
    last = `${r.status} ${r.body}`;
    const state = await podman(['inspect', '--format', '{{.State.Status}}', c.name]);
    if (state !== 'running') throw new Error(`${c.name} is ${state} before it was ready`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${c.name}: /healthz not ready in ${timeoutMs} ms (last: ${last})`);
}

export function httpGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${url} timed out`)));
  });
}

/** The container's cgroup v1 figures (podman with cgroupfs puts it under libpod_parent). */
function cgroupUsage(id: string): { workingSetBytes: number; cpuNs: number } {
  const dir = (controller: string) =>
    path.join('/sys/fs/cgroup', controller, 'libpod_parent', `libpod-${id}`);
  const read = (controller: string, file: string) =>
    fs.readFileSync(path.join(dir(controller), file), 'utf8');
  const usage = Number(read('memory', 'memory.usage_in_bytes'));
  const inactive = Number(
    /^total_inactive_file (\d+)$/m.exec(read('memory', 'memory.stat'))?.[1] ?? 0,
  );
  return {
    workingSetBytes: Math.max(0, usage - inactive),
    cpuNs: Number(read('cpuacct', 'cpuacct.usage')),
  };
}

/**
 * `npm run bench`, fleet rows: desktop containers on this machine, 1, 2, ... at once, each
 * driven by its own MCP client over HTTP at the same time: galculator launched and clicked
 * once, then walked (ax_get_tree: the walk, the tree file and the screenshot, the CPU-bound
 * call) over and over. A click's latency is mostly its settle wait, not the machine's work,
 * so it is not what the levels compare. Per level: p90 and median of a walk, the working set
 * and CPU time of each desktop; and how long a desktop takes from `podman run` to ready.
 * Stops at the first level whose p90 is over twice the single desktop's, or at
 * BENCH_FLEET_MAX (default 6).
 */
export async function fleetSection(): Promise<void> {
  const [{ out, table, fmt }, { stats }, { connectHttp }] = await Promise.all([
    import('./report.js'),
    import('./stats.js'),
    import('../harness/http-serve.js'),
  ]);
  if (process.getuid?.() !== 0) {
    out('skipped: rootful podman needs root (scripts/install-fleet-deps.sh, then run as root)');
    return;
  }
  const max = Number(process.env.BENCH_FLEET_MAX ?? 6);
  const rounds = Number(process.env.BENCH_FLEET_ROUNDS ?? 15);
  const t0 = performance.now();
  const { apps } = buildFleetImages();
  out(`images ready in ${fmt((performance.now() - t0) / 1000)} s (${apps})`);
  const fs = await import('node:fs');
  const os = await import('node:os');
  const { randomBytes } = await import('node:crypto');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-bench-fleet-'));
  const rows: string[][] = [];
  let baseP90: number | undefined;
  let fits = 0;
  const startMs: number[] = [];
  let aloneMs: number | undefined;
  const idleMiB: number[] = [];
  try {
    for (let n = 1; n <= max; n++) {
      const desktops = await Promise.all(
        Array.from({ length: n }, async (_, k) => {
          const token = randomBytes(24).toString('hex');
          const tokenFile = path.join(dir, `token-${n}-${k}`);
          fs.writeFileSync(tokenFile, token, { mode: 0o644 });
          const c = await startDesktopContainer({
            image: apps,
            name: `axpage-bench-fleet-${process.pid}-${n}-${k}`,
            volume: path.join(dir, `volume-${n}-${k}`),
            tokenFile,
          });
          return { c, token };
        }),
      );
      try {
        if (n === 1) aloneMs = desktops[0].c.startMs;
        startMs.push(...desktops.map((d) => d.c.startMs));
        idleMiB.push(...desktops.map((d) => d.c.usage().workingSetBytes / 2 ** 20));
        const clients = await Promise.all(desktops.map((d) => connectHttp(d.c.url, d.token)));
        const pids = await Promise.all(
          clients.map(async (client) => {
            const r = await client.call('ax_launch_app', { command: ['galculator'] });
            const pid = /^pid: (\d+)$/m.exec(r.text)?.[1];
            if (r.isError || !pid) throw new Error(`galculator did not start: ${r.text}`);
            const click = await client.call('ax_click', { app: Number(pid), query: 'button:1' });
            if (click.isError) throw new Error(`the click on galculator failed: ${click.text}`);
            return Number(pid);
          }),
        );
        const cpu0 = desktops.map((d) => d.c.usage().cpuNs);
        const latencies: number[] = [];
        const wall0 = performance.now();
        await Promise.all(
          clients.map(async (client, k) => {
            for (let i = 0; i < rounds; i++) {
              const t = performance.now();
              const r = await client.call('ax_get_tree', { app: pids[k] });
              latencies.push(performance.now() - t);
              if (r.isError) throw new Error(`ax_get_tree failed on desktop ${k}: ${r.text}`);
            }
          }),
        );
        const wallS = (performance.now() - wall0) / 1000;
        const mem = desktops.map((d) => d.c.usage().workingSetBytes / 2 ** 20);
        const cpuS = desktops.map((d, k) => (d.c.usage().cpuNs - cpu0[k]) / 1e9);
        await Promise.all(clients.map((c) => c.close()));
        const s = stats(latencies);
        baseP90 ??= s.p90;
        const within = s.p90 <= 2 * baseP90;
        if (within) fits = n;
        rows.push([
          String(n),
          String(s.n),
          fmt(s.median),
          fmt(s.p90),
          `${fmt(s.p90 / baseP90)}x`,
          fmt(Math.max(...mem)),
          fmt(cpuS.reduce((a, b) => a + b, 0) / latencies.length),
          fmt(cpuS.reduce((a, b) => a + b, 0) / wallS),
        ]);
        if (!within) break;
      } finally {
        await Promise.all(desktops.map((d) => d.c.remove()));
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  table(
    [
      'desktops',
      'walks',
      'median ms',
      'p90 ms',
      'p90 / 1 desktop',
      'max MiB per desktop (busy)',
      'CPU s per walk',
      'cores busy',
    ],
    rows,
  );
  const start = stats(startMs);
  const idle = stats(idleMiB);
  out();
  out(
    `desktops per machine before p90 doubles: **${fits}**${fits === max ? ` (or more: BENCH_FLEET_MAX=${max} reached)` : ''} on ${os.cpus().length} cores`,
  );
  out(
    `start-up of a desktop (podman run to /healthz ready): ${fmt(aloneMs)} ms alone; started side by side, median ${fmt(start.median)} ms, p90 ${fmt(start.p90)} ms (n=${start.n})`,
  );
  out(
    `memory per desktop just started (working set, no app): median ${fmt(idle.median)} MiB, max ${fmt(idle.max)} MiB`,
  );
}
