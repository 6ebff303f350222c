/**
 * The seam between the platform-free layers and a backend: what a native role or action
 * name means comes from the installed vocabulary, never from the layers themselves, and the
 * lint rule that keeps platform names below src/platform is on where it should be.
 */
import { ESLint } from 'eslint';
import { afterEach, describe, expect, it } from 'vitest';
import { pressAction } from '../../src/actions/click.js';
import { scrollActionName, scrollActionTarget } from '../../src/actions/scroll-actions.js';
import type { Element } from '../../src/model/element.js';
import {
  EMPTY_VOCABULARY,
  useVocabulary,
  vocabulary,
  type NativeVocabulary,
} from '../../src/model/vocabulary.js';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { platformVocabulary } from '../../src/platform/index.js';
import { LINUX_TRAITS } from '../../src/platform/linux/traits.js';
import { resolveElementTypes, resolveRole, suggestRoles } from '../../src/query/index.js';
import { createServer } from '../../src/server.js';
import { isViewportLike } from '../../src/viewport/index.js';
import { buildSnapshot, viewOf } from './helpers/synthetic.js';

/** A made-up backend's names, to show the layers follow whichever vocabulary is installed. */
const OTHER: NativeVocabulary = {
  ...EMPTY_VOCABULARY,
  roleNames: { AXButton: ['knopf'], AXGroup: ['rahmen'] },
  elementTypeRoles: { tab: ['reiter'] },
  viewportRoles: new Set(['rahmen']),
  pressActions: ['axpress'],
  scrollActions: { up: 'AXScrollUp', down: 'AXScrollDown', left: 'AXLeft', right: 'AXRight' },
};

const element = (role: string, nativeRole: string, actions: string[] = []): Element => ({
  id: 'e',
  parent: -1,
  depth: 0,
  role,
  nativeRole,
  name: '',
  flags: [],
  actions,
  childCount: 0,
});

afterEach(() => useVocabulary(LINUX_TRAITS.vocabulary));

describe('the installed vocabulary', () => {
  it("is the Linux backend's on Linux, as the server installs it", () => {
    if (process.platform !== 'linux') return;
    expect(platformVocabulary()).toBe(LINUX_TRAITS.vocabulary);
    expect(vocabulary()).toBe(LINUX_TRAITS.vocabulary);
    expect(resolveRole('password text')?.roles).toEqual(['AXSecureTextField']);
    expect(suggestRoles('password txt')).toContain('password text');
  });

  it('is installed by the server when it is created, before any desktop is opened', async () => {
    useVocabulary(EMPTY_VOCABULARY);
    const handle = createServer(() => Promise.reject(new Error('no desktop in this test')), {
      ...DEFAULT_CONFIG,
      outDir: '/nonexistent-axpage-test',
    });
    try {
      expect(vocabulary()).toBe(platformVocabulary());
    } finally {
      await handle.close();
    }
  });

  it('without a backend, queries know the AX names and their words only', () => {
    useVocabulary(EMPTY_VOCABULARY);
    expect(resolveRole('password text')).toBeNull();
    expect(resolveRole('AXButton')?.roles).toEqual(['AXButton']);
    expect(resolveRole('button')?.nativeRoles).toEqual([]);
    expect(resolveRole('textfield')?.roles).toContain('AXTextField');
    expect(suggestRoles('password txt')).not.toContain('password text');
    expect(isViewportLike(element('AXGroup', 'viewport'))).toBe(false);
    expect(isViewportLike(element('AXScrollArea', ''))).toBe(true);
    expect(pressAction(element('AXButton', '', ['click']))).toBeUndefined();
    expect(scrollActionName('down')).toBe('');
  });

  it("another backend's names mean what its vocabulary says", () => {
    useVocabulary(OTHER);
    expect(resolveRole('knopf')?.roles).toEqual(['AXButton']);
    expect(resolveRole('button')?.nativeRoles).toEqual(['knopf']);
    // Under a catch-all role a name stands for itself only.
    expect(resolveRole('rahmen')).toMatchObject({ roles: [], nativeRoles: ['rahmen'] });
    expect(resolveRole('password text')).toBeNull();
    const types = resolveElementTypes(['tab']);
    expect('nativeRoles' in types && [...types.nativeRoles]).toEqual(['reiter']);
    expect(isViewportLike(element('AXGroup', 'rahmen'))).toBe(true);
    expect(isViewportLike(element('AXGroup', 'scroll pane'))).toBe(false);
    expect(pressAction(element('AXButton', 'knopf', ['AXShowMenu', 'AXPress']))).toBe('AXPress');
    const view = viewOf(
      buildSnapshot([
        {
          role: 'AXWindow',
          frame: [0, 0, 500, 400],
          window: { active: true },
          children: [{ role: 'AXWebArea', frame: [0, 0, 500, 400], actions: ['AXScrollDown'] }],
        },
      ]),
    );
    expect(scrollActionTarget(view, undefined, 'down')).toBe(1);
    expect(scrollActionTarget(view, undefined, 'up')).toBeUndefined();
  });
});

describe('platform names stay below src/platform (eslint-rules/platform-names.js)', () => {
  const eslint = new ESLint();
  const problems = async (code: string, filePath: string): Promise<string[]> => {
    const [result] = await eslint.lintText(code, { filePath });
    return result.messages
      .filter((m) => m.ruleId === 'axpage/platform-names')
      .map((m) => m.message);
  };

  it('flags AT-SPI role names, nativeRole comparisons and X11 or D-Bus names above the platform', async () => {
    const code = [
      "export const a = new Set(['scroll pane', 'viewport']);",
      "export const b = (el: { nativeRole: string }): boolean => el.nativeRole === 'menu';",
      "export const c = 'org.a11y.atspi.Component';",
      "export const d = ['Return', 'KP_Enter'];",
      'export const e = `_NET_WM_PID of ${a.size}`;',
    ].join('\n');
    const found = await problems(code, 'src/viewport/example.ts');
    expect(found).toHaveLength(5);
    expect(found[0]).toContain("'scroll pane'");
    expect(found[1]).toContain("nativeRole compared with 'menu'");
  });

  it('leaves the model vocabulary and the query words alone', async () => {
    const code = [
      "export const roles = ['AXButton', 'AXScrollArea', 'menu', 'dialog'];",
      "export const words = ['check box', 'radio button', 'menu item', 'text field'];",
      "export const keys = ['Return', 'Page_Down', 'BackSpace'];",
    ].join('\n');
    expect(await problems(code, 'src/query/example.ts')).toEqual([]);
  });

  it('is off below src/platform, in the headless desktop and in the bench', async () => {
    const code = "export const a = ['push button', 'KP_Home', 'org.a11y.atspi.Registry'];";
    expect(await problems(code, 'src/platform/linux/example.ts')).toEqual([]);
    expect(await problems(code, 'src/desktop/example.ts')).toEqual([]);
    expect(await problems(code, 'src/bench/example.ts')).toEqual([]);
    expect(await problems(code, 'src/actions/example.ts')).toHaveLength(3);
    // The harness and `axpage desktop` only call the headless desktop.
    expect(await problems(code, 'src/harness/example.ts')).toHaveLength(3);
    expect(await problems(code, 'src/cli/desktop.ts')).toHaveLength(3);
  });
});
