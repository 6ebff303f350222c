/**
 * The Kubernetes manifests (deploy/k8s) as `render.mjs` prints them, checked against the
 * Kubernetes API's JSON schemas (the kubernetes-models package ships them, compiled; no
 * cluster and no network needed), and for what the fleet relies on: each desktop its own
 * Service, token and volume, probes on /healthz, sized requests.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { StatefulSet } from 'kubernetes-models/apps/v1';
import { Secret, Service } from 'kubernetes-models/v1';

const root = path.resolve(import.meta.dirname, '..', '..');
const render = path.join(root, 'deploy', 'k8s', 'render.mjs');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-k8s-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [key: string]: unknown;
}

function rendered(args: string[]): Doc[] {
  const text = execFileSync(process.execPath, [render, ...args], { encoding: 'utf8' });
  return parseAllDocuments(text).map((d) => d.toJS() as Doc);
}

/** Validates `doc` against its kind's schema; throws the schema's message when it fails. */
function validate(doc: Doc): void {
  const models: Record<string, new (data: never) => { validate(): void }> = {
    'apps/v1/StatefulSet': StatefulSet,
    'v1/Service': Service,
    'v1/Secret': Secret,
  };
  const Model = models[`${doc.apiVersion}/${doc.kind}`];
  if (!Model) throw new Error(`no schema here for ${doc.apiVersion} ${doc.kind}`);
  new Model(doc as never).validate();
}

describe('deploy/k8s manifests', () => {
  const docs = rendered([
    '--replicas',
    '4',
    '--image',
    'registry.example/axpage:1',
    '--namespace',
    'desk',
  ]);
  const set = docs.find((d) => d.kind === 'StatefulSet') as unknown as StatefulSet & Doc;

  it('every document is valid against the Kubernetes schema of its kind', () => {
    expect(docs.map((d) => d.kind).sort()).toEqual([
      'Secret',
      ...Array<string>(5).fill('Service'),
      'StatefulSet',
    ]);
    for (const doc of docs) expect(() => validate(doc), doc.metadata.name).not.toThrow();
    for (const doc of docs) expect(doc.metadata.namespace).toBe('desk');
  });

  it('the schema check catches a broken manifest (so passing it means something)', () => {
    const broken = structuredClone(set) as unknown as Doc & { spec: Record<string, unknown> };
    broken.spec.replicas = 'four';
    expect(() => validate(broken)).toThrow(/replicas must be integer/);
  });

  it('gives desktop k its own Service, token and volume, and probes /healthz', () => {
    expect(set.spec?.replicas).toBe(4);
    const pod = set.spec!.template.spec!;
    const c = pod.containers[0];
    expect(c.image).toBe('registry.example/axpage:1');
    for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
      expect(probe?.httpGet).toMatchObject({ path: '/healthz', port: 'mcp' });
    }
    expect(c.ports?.[0]).toMatchObject({ name: 'mcp', containerPort: 8939 });
    expect(c.resources?.requests).toMatchObject({
      cpu: expect.any(String),
      memory: expect.any(String),
    });
    const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e]));
    expect(env.POD_NAME.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(env.AXPAGE_TOKEN_FILE.value).toBe('/run/secrets/axpage-tokens/$(POD_NAME)');
    expect(env.AXPAGE_ALLOWED_HOSTS.value?.split(',')).toContain('$(POD_NAME)');
    expect(set.spec?.volumeClaimTemplates?.[0].metadata?.name).toBe('artifacts');
    expect(c.volumeMounts?.find((m) => m.name === 'artifacts')?.mountPath).toBe('/var/lib/axpage');
    // The pod runs as the image's user; the secret's files are readable by its group only.
    expect(pod.securityContext).toMatchObject({
      runAsUser: 1000,
      fsGroup: 1000,
      runAsNonRoot: true,
    });
    expect(pod.volumes?.find((v) => v.name === 'tokens')?.secret?.defaultMode).toBe(0o440);

    const secret = docs.find((d) => d.kind === 'Secret') as Doc & {
      stringData: Record<string, string>;
    };
    const services = docs.filter(
      (d) => d.kind === 'Service' && d.metadata.name !== 'axpage-desktop',
    );
    for (let k = 0; k < 4; k++) {
      const name = `axpage-desktop-${k}`;
      expect(secret.stringData[name].length).toBeGreaterThanOrEqual(32);
      const svc = services.find((s) => s.metadata.name === name) as unknown as Service;
      expect(svc.spec?.selector).toEqual({ 'statefulset.kubernetes.io/pod-name': name });
      expect(svc.spec?.ports?.[0]).toMatchObject({ port: 8939, targetPort: 'mcp' });
    }
    expect(new Set(Object.values(secret.stringData)).size).toBe(4);
    const headless = docs.find((d) => d.metadata.name === 'axpage-desktop') as unknown as Service;
    expect(headless.spec?.clusterIP).toBe('None');
    expect(set.spec?.serviceName).toBe('axpage-desktop');
  });

  it('keeps tokens in --token-dir (0600) and renders the same ones again', () => {
    const dir = path.join(tmp, 'tokens');
    const first = rendered(['--replicas', '2', '--image', 'i', '--token-dir', dir]);
    const again = rendered(['--replicas', '2', '--image', 'i', '--token-dir', dir]);
    const tokens = (docs: Doc[]) =>
      (docs.find((d) => d.kind === 'Secret') as Doc & { stringData: unknown }).stringData;
    expect(tokens(again)).toEqual(tokens(first));
    expect(fs.statSync(path.join(dir, 'axpage-desktop-1')).mode & 0o777).toBe(0o600);
  });

  it('refuses bad arguments with a clear message and exit 2', () => {
    const r = spawnSync(process.execPath, [render, '--replicas', 'many', '--image', 'i'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--replicas many: give a whole number from 1 to 1000/);
    const noImage = spawnSync(process.execPath, [render], { encoding: 'utf8' });
    expect(noImage.stderr).toMatch(/--image is required/);
  });
});
