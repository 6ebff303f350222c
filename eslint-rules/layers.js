// @ts-check
/**
 * Layer rules: which parts of src/ a module may import, by relative path. Like a
 * DEPS list: the pure layers (model, tree, diff, viewport, query, summary) never reach
 * the pipeline, the platform or the MCP tools; a backend knows only the model and the
 * errors; actions speak to the platform interface, never to tools or summaries.
 * Anything not listed (server, cli, config, desktop, harness, bench, demo) is the top.
 */
import path from 'node:path';

const PURE = ['model', 'errors.ts'];
const PLATFORM_INTERFACE = 'platform/desktop.ts';

/** Layer → what it may import besides itself. */
export const LAYERS = {
  'errors.ts': [],
  model: ['errors.ts'],
  tree: [...PURE, 'viewport'],
  diff: PURE,
  viewport: PURE,
  query: PURE,
  summary: [...PURE, 'tree'],
  capture: [...PURE, PLATFORM_INTERFACE],
  platform: PURE,
  actions: [...PURE, PLATFORM_INTERFACE, 'viewport'],
  // The audit log appends through the artifact dir's one safe writer.
  guard: [...PURE, 'tree', 'capture'],
  audit: PURE,
  visual: [...PURE, 'tree', 'capture'],
  pipeline: [
    ...PURE,
    'tree',
    'diff',
    'viewport',
    'query',
    'summary',
    'capture',
    'actions',
    'guard',
    PLATFORM_INTERFACE,
    'config.ts',
  ],
  tools: [
    ...PURE,
    'pipeline',
    'query',
    'actions',
    'audit',
    'visual',
    PLATFORM_INTERFACE,
    'config.ts',
  ],
  surface: [...PURE, 'pipeline', 'tools', 'capture', PLATFORM_INTERFACE, 'config.ts'],
  // The viewer's server reuses the HTTP guard's checks and the pixel diff.
  view: [...PURE, 'capture', 'guard', 'visual', 'transport/http-guard.ts'],
};

function layerOf(rel) {
  const first = rel.split('/')[0];
  if (rel === PLATFORM_INTERFACE) return PLATFORM_INTERFACE;
  return first;
}

function allowed(fromLayer, rel) {
  const to = layerOf(rel);
  if (to === fromLayer) return true;
  if (to === PLATFORM_INTERFACE && fromLayer === 'platform') return true;
  const list = LAYERS[fromLayer];
  return list.includes(to) || list.includes(rel);
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Enforce the dependency directions between the layers of src/' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const srcRoot = path.join(context.cwd, 'src');
    const relFile = path.relative(srcRoot, file);
    if (relFile.startsWith('..')) return {};
    const fromLayer = layerOf(relFile.split(path.sep).join('/'));
    if (LAYERS[fromLayer] === undefined) return {};
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = path.relative(srcRoot, path.resolve(path.dirname(file), spec));
      const rel = target.split(path.sep).join('/').replace(/\.js$/, '.ts');
      if (rel.startsWith('..')) return;
      if (!allowed(fromLayer, rel)) {
        context.report({
          node,
          message: `${fromLayer} may not import ${rel} (allowed: ${[fromLayer, ...LAYERS[fromLayer]].join(', ')})`,
        });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export default { rules: { layers: rule } };
