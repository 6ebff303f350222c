/**
 * eslint-rules/layers.js: which layers of src/ and which packages each layer may import.
 * RuleTester runs the rule on code given a file name under src/, the way eslint sees
 * the repository's own files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ESLint, RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import layers, { LAYERS, PACKAGES, layerOf, packageOf } from '../../eslint-rules/layers.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const tester = new RuleTester({
  files: ['**/*.ts'],
  languageOptions: { parser: tseslint.parser },
});

/** A file of src/ as eslint names it: an absolute path under the working directory. */
const src = (rel: string): string => path.join(process.cwd(), 'src', rel);

const case_ = (file: string, code: string) => ({ filename: src(file), code });
const bad = (file: string, code: string, ...messages: (string | RegExp)[]) => ({
  ...case_(file, code),
  errors: messages.map((message) => ({ message })),
});

tester.run('layers', layers.rules.layers, {
  valid: [
    // Each layer's own files and what its list names.
    case_('tree/file.ts', "import { a } from './line.js';"),
    case_('tree/file.ts', "import type { Element } from '../model/element.js';"),
    case_('tree/file.ts', "import { isVisible } from '../viewport/index.js';"),
    case_('model/timeout.ts', "import os from 'node:os';"),
    case_('diff/text-span.ts', "import diff from 'fast-diff';"),
    case_('query/regex.ts', "import { RE2JS } from 're2js';"),
    case_('summary/schema.ts', "import { z } from 'zod';"),
    // The interface knows the model and the errors; a backend knows the interface.
    case_('platform/desktop.ts', "import type { Snapshot } from '../model/snapshot.js';"),
    case_('platform/desktop.ts', "import { AxError } from '../errors.js';"),
    case_('platform/linux/traits.ts', "import type { PlatformTraits } from '../desktop.js';"),
    // The interface may be split into files beside desktop.ts; they are the interface too.
    case_('platform/desktop.ts', "export type { AccessibilitySource } from './accessibility.js';"),
    case_('actions/click.ts', "import type { Processes } from '../platform/processes.js';"),
    case_('platform/linux/atspi/bus.ts', "import dbus from 'dbus-next';"),
    case_(
      'platform/linux/x11.ts',
      [
        "import { createRequire } from 'node:module';",
        "export const n = createRequire(import.meta.url)('@axpage/native');",
      ].join('\n'),
    ),
    // A subpath of a built-in counts as its module.
    case_('pipeline/launch.ts', "import fsp from 'node:fs/promises';"),
    case_('pipeline/pipeline.ts', "import { DEFAULT_CONFIG } from '../config.js';"),
    case_('view/server.ts', "import { checkHost } from '../transport/http-guard.js';"),
    case_('config.ts', "import { MODES } from './guard/policy.js';"),
    case_('transport/http.ts', "import http from 'node:http';"),
    case_(
      'transport/stdio.ts',
      "import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';",
    ),
    // The headless desktop brings up the Linux desktop with the backend's pieces.
    case_('desktop/headless.ts', "import { AtspiBus } from '../platform/linux/atspi/bus.js';"),
    case_('desktop/session-buses.ts', "import dbus from 'dbus-next';"),
    case_('harness/session.ts', "import { startDesktop } from '../desktop/index.js';"),
    // The top wires everything.
    case_('cli.ts', "import { createServer } from './server.js';"),
    case_('cli/desktop.ts', "import dbus from 'dbus-next';"),
    case_('server.ts', "import { linuxDesktop } from './platform/index.js';"),
    case_('server.ts', "const pkg = require('../package.json');"),
    // Computed specifiers cannot be judged; files outside src/ are not this rule's.
    case_('tree/file.ts', 'export const load = (name: string) => import(name);'),
    { filename: path.join(process.cwd(), 'test/unit/x.test.ts'), code: "import 'dbus-next';" },
  ],
  invalid: [
    // Pure layers reach neither up nor out.
    bad(
      'tree/file.ts',
      "import { act } from '../pipeline/act.js';",
      'tree may not import pipeline/act.ts (allowed: tree, model, errors.ts, viewport)',
    ),
    bad(
      'viewport/x.ts',
      "import dbus from 'dbus-next';",
      /viewport may not import the package dbus-next/,
    ),
    bad(
      'model/x.ts',
      "import { execFile } from 'node:child_process';",
      /package node:child_process/,
    ),
    // A bare built-in is the same module as its node: form.
    bad('summary/x.ts', "import fs from 'fs';", /summary may not import the package node:fs/),
    bad('query/x.ts', "export { z } from 'zod';", /query may not import the package zod/),
    bad(
      'diff/x.ts',
      "export * from '../capture/image.js';",
      /diff may not import capture\/image.ts/,
    ),
    // The platform interface: model and errors only, no backend, no package.
    bad(
      'platform/desktop.ts',
      "import type { Bus } from './linux/atspi/bus.js';",
      /platform\/\*.ts may not import platform\/linux\/atspi\/bus.ts/,
    ),
    bad(
      'platform/desktop.ts',
      "import type { MessageBus } from 'dbus-next';",
      /platform\/\*.ts may not import the package dbus-next \(allowed: none\)/,
    ),
    // Above the platform only the interface, never a backend or its packages.
    bad(
      'actions/click.ts',
      "import { pointer } from '../platform/linux/x11.js';",
      /actions may not import platform\/linux\/x11.ts/,
    ),
    // index.ts picks the backend: it is the backend's side, for the top to call.
    bad(
      'tools/x.ts',
      "import { openDesktop } from '../platform/index.js';",
      /tools may not import platform\/index.ts/,
    ),
    bad(
      'tree/x.ts',
      "import type { AccessibilitySource } from '../platform/accessibility.js';",
      /tree may not import platform\/accessibility.ts/,
    ),
    bad(
      'pipeline/x.ts',
      "const n = createRequire(import.meta.url)('@axpage/native');",
      /pipeline may not import the package @axpage\/native/,
    ),
    bad(
      'tools/x.ts',
      "const d = await import('dbus-next');",
      /tools may not import the package dbus-next/,
    ),
    bad(
      'capture/x.ts',
      "type T = import('../pipeline/pipeline.js').Pipeline;",
      /capture may not import pipeline\/pipeline.ts/,
    ),
    bad('tools/x.ts', "import { spawn } from 'node:child_process';", /node:child_process/),
    // config, transport, the desktop and the harness have their lists too.
    bad(
      'config.ts',
      "import { act } from './pipeline/act.js';",
      /config.ts may not import pipeline/,
    ),
    bad(
      'transport/x.ts',
      "import { createServer } from '../server.js';",
      /transport may not import server.ts/,
    ),
    bad(
      'transport/x.ts',
      "import dbus from 'dbus-next';",
      /transport may not import the package dbus-next/,
    ),
    bad(
      'desktop/x.ts',
      "import { runTool } from '../pipeline/pipeline.js';",
      /desktop may not import/,
    ),
    bad(
      'harness/x.ts',
      "import { createServer } from '../server.js';",
      /harness may not import server.ts/,
    ),
    bad(
      'server.ts',
      "import dbus from 'dbus-next';",
      /server.ts may not import the package dbus-next/,
    ),
    // A path out of src/ is allowed only where listed.
    bad(
      'tree/x.ts',
      "import data from '../../package.json';",
      /tree may not import ..\/package.json/,
    ),
    // A file of a layer not listed has to be given its place.
    bad('newlayer/x.ts', 'export const a = 1;', /src\/newlayer\/x.ts is in no layer/),
  ],
});

describe('the layer rule in eslint.config.js', () => {
  it('is on for every file of src/', async () => {
    const eslint = new ESLint();
    const [result] = await eslint.lintText("import dbus from 'dbus-next';\nexport { dbus };\n", {
      filePath: 'src/tree/example.ts',
    });
    expect(result.messages.map((m) => m.ruleId)).toEqual(['axpage/layers']);
  });
});

describe('the layer tables', () => {
  it('list the same layers, and every entry of src/ is one of them', () => {
    expect(Object.keys(PACKAGES).sort()).toEqual(Object.keys(LAYERS).sort());
    const entries = fs
      .readdirSync('src')
      .filter((e) => e.endsWith('.ts') || fs.statSync(path.join('src', e)).isDirectory());
    for (const e of entries) expect(LAYERS, e).toHaveProperty([layerOf(e)]);
    expect(LAYERS).toHaveProperty([layerOf('platform/desktop.ts')]);
    expect(layerOf('platform/index.ts')).toBe('platform');
  });

  it('let only the platform and the tooling that brings up a desktop reach D-Bus and the addon', () => {
    const reaching = (pkg: string) =>
      Object.entries(PACKAGES)
        .filter(([, list]) => list.includes(pkg) || list.includes('*'))
        .map(([layer]) => layer)
        .sort();
    const expected = ['bench', 'cli', 'cli.ts', 'demo', 'desktop', 'harness', 'platform'];
    expect(reaching('dbus-next')).toEqual(expected);
    expect(reaching('@axpage/native')).toEqual(expected);
    expect(reaching('node:child_process')).toEqual(expected);
  });

  it('name a package by its root, a built-in by its node: module', () => {
    expect(packageOf('@modelcontextprotocol/sdk/server/mcp.js')).toBe('@modelcontextprotocol/sdk');
    expect(packageOf('dbus-next')).toBe('dbus-next');
    expect(packageOf('sharp/lib/x')).toBe('sharp');
    expect(packageOf('node:fs/promises')).toBe('node:fs');
    expect(packageOf('child_process')).toBe('node:child_process');
  });
});
