/**
 * eslint-rules/platform-names.js: AT-SPI, D-Bus and X11 names are errors above
 * src/platform. RuleTester runs the rule alone (which files it is on for is
 * eslint.config.js's business, tested in platform-seam.test.ts); the role names it knows
 * are the backend's own table's.
 */
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import platformNames, { ATSPI_ROLE_NAMES, QUERY_WORDS } from '../../eslint-rules/platform-names.js';
import { EMPTY_VOCABULARY, useVocabulary } from '../../src/model/vocabulary.js';
import { ATSPI_ROLES } from '../../src/platform/linux/roles.js';
import { LINUX_TRAITS } from '../../src/platform/linux/traits.js';
import { resolveRole } from '../../src/query/index.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const tester = new RuleTester({
  files: ['**/*.ts'],
  languageOptions: { parser: tseslint.parser },
});

const ok = (code: string) => ({ code, filename: 'src/query/example.ts' });
const bad = (code: string, ...messages: (string | RegExp)[]) => ({
  code,
  filename: 'src/query/example.ts',
  errors: messages.map((message) => ({ message })),
});

tester.run('platform-names', platformNames.rules['platform-names'], {
  valid: [
    // The model's vocabulary is the platform-free one.
    ok("export const roles = ['AXButton', 'AXRow', 'AXCheckBox', 'AXTabGroup'];"),
    // One-word role names are ordinary words; the query words are ours too.
    ok("export const words = ['menu', 'dialog', 'text', 'panel'];"),
    ok("export const aliases = ['check box', 'radio button', 'menu item'];"),
    // Key names are the model's (X keysym spellings without a prefix).
    ok("export const keys = ['Return', 'Page_Down', 'BackSpace', 'Tab'];"),
    // nativeRole compared with a variable or with "no native role", or carried along.
    ok('export const same = (a: { nativeRole: string }, r: string) => a.nativeRole === r;'),
    ok("export const none = (a: { nativeRole: string }) => a.nativeRole === '';"),
    ok('export const copy = (a: { nativeRole: string }) => ({ nativeRole: a.nativeRole });'),
    ok('export const q = { nativeRoles: [], roles: [] };'),
    // A one-word native name on its own is a word like any other.
    ok("export const kind = 'filler';"),
  ],
  invalid: [
    bad("export const a = new Set(['push button']);", /the AT-SPI role name 'push button'/),
    bad(
      "export const tabs = ['page tab', 'toggle button', 'spin button', 'combo box'];",
      /'page tab'/,
      /'toggle button'/,
      /'spin button'/,
      /'combo box'/,
    ),
    bad("export const a = 'Layered Pane';", /the AT-SPI role name 'Layered Pane'/),
    bad('export const a = `table cell`;', /the AT-SPI role name 'table cell'/),
    bad("const byName = { 'scroll pane': 1 };", /'scroll pane'/),
    // A native name, whatever the word: compared, switched on, or in a native… table.
    bad(
      "export const f = (el: { nativeRole: string }) => el.nativeRole === 'filler';",
      /a nativeRole compared with 'filler'/,
    ),
    bad(
      "export const f = (el?: { nativeRole: string }) => 'menu' !== el?.nativeRole;",
      /a nativeRole compared with 'menu'/,
    ),
    bad(
      [
        'export function f(el: { nativeRole: string }): number {',
        '  switch (el.nativeRole) {',
        "    case 'panel':",
        '      return 1;',
        "    case '':",
        '      return 2;',
        '    default:',
        '      return 0;',
        '  }',
        '}',
      ].join('\n'),
      /a nativeRole switched on 'panel'/,
    ),
    bad(
      "export const table = [{ ax: 'AXButton', native: ['button'] }];",
      /the native name 'button' in a table/,
    ),
    bad("export const el = { nativeRole: 'label' };", /the native name 'label' in a table/),
    // X11 and D-Bus names.
    bad("export const k = 'XK_Return';", /'xk_'/),
    bad('export const XK_Return = 0xff0d;', /the X keysym name 'XK_Return'/),
    bad("export const k = ['KP_Enter', 'ISO_Left_Tab'];", /'kp_'/, /'iso_'/),
    bad("export const route = { route: 'xtest' };", /'xtest'/),
    bad("export const tool = 'xwininfo';", /'xwininfo'/),
    bad("export const bus = 'org.a11y.atspi.Registry';", /'org.a11y'/),
    bad('export const p = `_NET_WM_PID of ${1}`;', /'_net_'/),
  ],
});

describe("the rule's role names", () => {
  it("are the backend table's names of two or more words, less the query words", () => {
    const multiWord = ATSPI_ROLES.filter((r) => r.includes(' '));
    expect([...ATSPI_ROLE_NAMES, ...QUERY_WORDS].sort()).toEqual([...multiWord].sort());
  });

  it('leave out only words the query language knows without a backend', () => {
    useVocabulary(EMPTY_VOCABULARY);
    try {
      for (const word of QUERY_WORDS) expect(resolveRole(word), word).not.toBeNull();
    } finally {
      useVocabulary(LINUX_TRAITS.vocabulary);
    }
  });
});
