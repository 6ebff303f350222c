// @ts-check
/**
 * Layer rules: which parts of src/ and which packages a module may import. Like a DEPS
 * list: the pure layers (model, tree, diff, viewport, query, summary) never reach the
 * pipeline, the platform or the MCP tools, and import no package but the few pure ones
 * they compute with; a backend knows only the model and the errors; actions speak to the
 * platform interface, never to tools or summaries; D-Bus and the native X11 addon are
 * reached only through the platform (and by the tooling that brings up a desktop).
 *
 * Every file under src/ belongs to a layer: its first path segment (a directory or a file
 * at the top of src/), except the platform interface, which is a layer of its own: the
 * files directly in src/platform/ (desktop.ts and whatever it is split into) but index.ts,
 * which picks a backend. The backends, in the subdirectories, implement the interface and
 * the layers above import it, so it may import only what both sides know. A file of no
 * listed layer is an error, so a new directory has to say where it stands.
 */
import { isBuiltin } from 'node:module';
import path from 'node:path';

/** In a list: anything at all (the top: the server's wiring, the CLI, the demo, the bench). */
export const ANY = '*';

const PURE = ['model', 'errors.ts'];
/** The layer of the platform interface's files (src/platform/*.ts but index.ts). */
const PLATFORM_INTERFACE = 'platform/*.ts';

/**
 * Layer → what of src/ it may import besides itself: layers, single files, or a path out
 * of src/ as written from src/ (`../package.json`).
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const LAYERS = {
  'errors.ts': [],
  model: ['errors.ts'],
  tree: [...PURE, 'viewport'],
  diff: PURE,
  viewport: PURE,
  query: PURE,
  summary: [...PURE, 'tree'],
  capture: [...PURE, PLATFORM_INTERFACE],
  [PLATFORM_INTERFACE]: PURE,
  platform: PURE,
  actions: [...PURE, PLATFORM_INTERFACE, 'viewport'],
  // The audit log appends through the artifact dir's one safe writer.
  guard: [...PURE, 'tree', 'capture'],
  audit: PURE,
  // Asking the person: questions, answers and when to ask; pure but for the call's asker.
  elicit: PURE,
  visual: [...PURE, 'tree', 'capture'],
  // Settings: their defaults and parsers live with the layers they configure.
  'config.ts': [...PURE, 'heap-growth.ts', 'guard', 'capture', 'elicit'],
  'heap-growth.ts': [],
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
    'elicit',
    PLATFORM_INTERFACE,
    'config.ts',
  ],
  tools: [
    ...PURE,
    'pipeline',
    'elicit',
    'query',
    'actions',
    'audit',
    'visual',
    PLATFORM_INTERFACE,
    'config.ts',
  ],
  // Recording turns a person's events into tool steps, walking through the pipeline.
  record: [...PURE, 'pipeline', 'tools', 'query', PLATFORM_INTERFACE],
  surface: [...PURE, 'pipeline', 'tools', 'record', 'capture', PLATFORM_INTERFACE, 'config.ts'],
  // Transports carry JSON-RPC messages; they know nothing of what the server does.
  transport: PURE,
  // The viewer's server reuses the HTTP guard's checks and the pixel diff.
  view: [...PURE, 'capture', 'guard', 'visual', 'transport/http-guard.ts'],
  // The headless desktop brings up the Linux desktop itself (its buses, the AT-SPI
  // registry, sway), so it uses the backend's pieces, but nothing of the server.
  desktop: [...PURE, 'platform'],
  // A real session drives the server as a client does, over stdio or HTTP: it starts a
  // desktop, never imports the server's own layers.
  harness: [...PURE, 'desktop'],
  // The top: they wire everything together.
  'server.ts': [ANY],
  'cli.ts': [ANY],
  cli: [ANY],
  demo: [ANY],
  bench: [ANY],
};

/** Node built-ins for files: reading and writing the artifact dir, settings, /proc. */
const FILES = ['node:fs', 'node:path', 'node:os'];
/** What only a backend (and the tooling that brings up a desktop) talks to. */
export const PLATFORM_PACKAGES = ['dbus-next', '@axpage/native'];
const MCP = '@modelcontextprotocol/sdk';

/**
 * Layer → the packages it may import: npm packages by name, Node built-ins as `node:x`
 * (a subpath such as node:fs/promises is its module, node:fs). Which files of a layer may
 * import the MCP SDK is narrowed further in eslint.config.js.
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const PACKAGES = {
  'errors.ts': [],
  // Waits stretch with the load per CPU (model/timeout.ts).
  model: ['node:os'],
  tree: [],
  diff: ['fast-diff'],
  viewport: [],
  // re2js: queries' regexes run in linear time, whatever an agent writes.
  query: ['re2js'],
  // zod: the summary's structuredContent schema.
  summary: ['zod'],
  capture: [...FILES, 'node:crypto', 'node:zlib', 'sharp'],
  // The interface is types and traits, nothing that runs.
  [PLATFORM_INTERFACE]: [],
  platform: [
    ...FILES,
    'node:child_process',
    'node:crypto',
    'node:net',
    // createRequire loads the native addon, a CommonJS module.
    'node:module',
    ...PLATFORM_PACKAGES,
  ],
  actions: [],
  guard: FILES,
  audit: [],
  elicit: [],
  visual: [...FILES, 'pixelmatch', 'sharp'],
  'config.ts': ['node:fs'],
  'heap-growth.ts': ['node:v8'],
  pipeline: [...FILES, 'node:crypto'],
  tools: [...FILES, 'zod', MCP],
  record: ['node:path'],
  surface: [...FILES, 'zod', MCP],
  transport: ['node:crypto', 'node:http', 'node:net', MCP],
  view: [...FILES, 'node:http', 'node:url'],
  desktop: [
    ...FILES,
    'node:child_process',
    'node:net',
    'node:stream',
    'node:url',
    ...PLATFORM_PACKAGES,
  ],
  harness: [...FILES, 'node:child_process', 'node:url', MCP, ...PLATFORM_PACKAGES],
  // The server is wired from the layers, never from a backend's packages.
  'server.ts': ['node:module', MCP],
  'cli.ts': [ANY],
  cli: [ANY],
  demo: [ANY],
  bench: [ANY],
};

/** @param {string} rel a path relative to src/, with forward slashes */
export function layerOf(rel) {
  const parts = rel.split('/');
  if (parts[0] === 'platform' && parts.length === 2 && parts[1] !== 'index.ts') {
    return PLATFORM_INTERFACE;
  }
  return parts[0];
}

/**
 * The package a specifier names: `@scope/name`, `name`, or `node:x` for a built-in.
 * @param {string} spec
 */
export function packageOf(spec) {
  const bare = spec.startsWith('node:') ? spec.slice('node:'.length) : spec;
  if (spec.startsWith('node:') || isBuiltin(spec)) return `node:${bare.split('/')[0]}`;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** @param {readonly string[]} list @param {string} layer @param {string} rel */
function permits(list, layer, rel) {
  return list.includes(ANY) || list.includes(layer) || list.includes(rel);
}

/** @param {string} fromLayer @param {string} rel */
function allowed(fromLayer, rel) {
  const to = rel.startsWith('..') ? rel : layerOf(rel);
  if (to === fromLayer) return true;
  // A backend implements the interface it sits under.
  if (to === PLATFORM_INTERFACE && fromLayer === 'platform') return true;
  return permits(LAYERS[fromLayer], to, rel);
}

/** @param {readonly string[]} list */
const shown = (list) => (list.length > 0 ? list.join(', ') : 'none');

/**
 * The string a node holds when it is a plain string literal (or a template without
 * expressions), else undefined: a computed specifier cannot be checked.
 * @param {any} node
 * @returns {string | undefined}
 */
function literal(node) {
  if (!node) return undefined;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) {
    return node.quasis[0].value.cooked ?? undefined;
  }
  return undefined;
}

/**
 * `require('x')` or `createRequire(...)('x')`: how an ES module loads a CommonJS one
 * (the native addon, package.json).
 * @param {any} node a CallExpression
 */
function isRequire(node) {
  const callee = node.callee;
  if (callee.type === 'Identifier') return callee.name === 'require';
  return (
    callee.type === 'CallExpression' &&
    callee.callee.type === 'Identifier' &&
    callee.callee.name === 'createRequire'
  );
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'Enforce the dependency directions between the layers of src/ and their packages',
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const srcRoot = path.join(context.cwd, 'src');
    const relFile = path.relative(srcRoot, file).split(path.sep).join('/');
    if (relFile.startsWith('..') || path.isAbsolute(relFile)) return {};
    const fromLayer = layerOf(relFile);
    if (LAYERS[fromLayer] === undefined || PACKAGES[fromLayer] === undefined) {
      return {
        Program(node) {
          context.report({
            node,
            message: `src/${relFile} is in no layer: give '${fromLayer}' its place in LAYERS and PACKAGES (eslint-rules/layers.js)`,
          });
        },
      };
    }
    /** @param {any} node @param {string | undefined} spec */
    const check = (node, spec) => {
      if (spec === undefined || spec === '') return;
      if (spec.startsWith('.')) {
        const target = path.relative(srcRoot, path.resolve(path.dirname(file), spec));
        const rel = target.split(path.sep).join('/').replace(/\.js$/, '.ts');
        if (!allowed(fromLayer, rel)) {
          context.report({
            node,
            message: `${fromLayer} may not import ${rel} (allowed: ${[fromLayer, ...LAYERS[fromLayer]].join(', ')})`,
          });
        }
        return;
      }
      const pkg = packageOf(spec);
      const list = PACKAGES[fromLayer];
      if (!permits(list, pkg, spec)) {
        context.report({
          node,
          message: `${fromLayer} may not import the package ${pkg} (allowed: ${shown(list)})`,
        });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, literal(node.source)),
      ExportNamedDeclaration: (node) => check(node, literal(node.source)),
      ExportAllDeclaration: (node) => check(node, literal(node.source)),
      ImportExpression: (node) => check(node, literal(node.source)),
      CallExpression: (node) => {
        if (isRequire(node) && node.arguments.length > 0) check(node, literal(node.arguments[0]));
      },
      // Type positions: `import('../x.js').T` and `import x = require('y')`.
      /** @param {any} node */
      TSImportType: (node) =>
        // typescript-eslint 8 names the specifier `source`; before, `argument.literal`.
        check(node, literal(node.source ?? node.argument?.literal)),
      /** @param {any} node */
      TSExternalModuleReference: (node) => check(node, literal(node.expression)),
    };
  },
};

export default { rules: { layers: rule } };
