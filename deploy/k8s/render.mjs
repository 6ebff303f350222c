#!/usr/bin/env node
/**
 * Renders the fleet's manifests for N desktops as one multi-document YAML on stdout:
 *   node deploy/k8s/render.mjs --replicas 3 --image registry.example/axpage-desktop-apps:TAG \
 *     [--namespace NS] [--token-dir DIR] | kubectl apply -f -
 * The StatefulSet and its headless Service (statefulset.yaml, service-headless.yaml), one
 * ClusterIP Service per desktop (axpage-desktop-<k>, selecting that pod by name), and the
 * Secret axpage-tokens with one token per desktop: read from DIR/axpage-desktop-<k> when
 * --token-dir is given, else made here (256 random bits each) and written to that dir (0600)
 * when it is given but a file is missing. Without --token-dir, tokens are made and appear
 * only in the output: read them back with kubectl get secret axpage-tokens.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse, stringify } from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
const NAME = 'axpage-desktop';

/** @param {string[]} argv */
export function render(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      replicas: { type: 'string', default: '3' },
      image: { type: 'string' },
      namespace: { type: 'string' },
      'token-dir': { type: 'string' },
    },
    strict: true,
  });
  const replicas = Number(values.replicas);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 1000) {
    throw new Error(`--replicas ${values.replicas}: give a whole number from 1 to 1000`);
  }
  if (!values.image) throw new Error('--image is required: the desktop image clients will drive');
  const ns = values.namespace ? { namespace: values.namespace } : {};
  const load = (/** @type {string} */ file) =>
    parse(fs.readFileSync(path.join(here, file), 'utf8'));

  const set = load('statefulset.yaml');
  set.metadata = { ...set.metadata, ...ns };
  set.spec.replicas = replicas;
  set.spec.template.spec.containers[0].image = values.image;
  const headless = load('service-headless.yaml');
  headless.metadata = { ...headless.metadata, ...ns };

  const pods = Array.from({ length: replicas }, (_, k) => `${NAME}-${k}`);
  const services = pods.map((pod) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: pod, ...ns, labels: { 'app.kubernetes.io/name': NAME } },
    spec: {
      type: 'ClusterIP',
      selector: { 'statefulset.kubernetes.io/pod-name': pod },
      ports: [{ name: 'mcp', port: 8939, targetPort: 'mcp' }],
    },
  }));
  const tokens = Object.fromEntries(pods.map((pod) => [pod, tokenFor(pod, values['token-dir'])]));
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'axpage-tokens', ...ns, labels: { 'app.kubernetes.io/name': NAME } },
    type: 'Opaque',
    stringData: tokens,
  };
  return [secret, headless, ...services, set].map((doc) => stringify(doc)).join('---\n');
}

/** @param {string} pod @param {string | undefined} dir */
function tokenFor(pod, dir) {
  if (dir === undefined) return randomBytes(32).toString('base64url');
  const file = path.join(dir, pod);
  if (fs.existsSync(file)) {
    const token = fs.readFileSync(file, 'utf8').trim();
    if (token.length < 16 || /\s/.test(token)) {
      throw new Error(`${file}: a token is one word of at least 16 characters`);
    }
    return token;
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return token;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(render(process.argv.slice(2)));
  } catch (err) {
    process.stderr.write(`render: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  }
}
