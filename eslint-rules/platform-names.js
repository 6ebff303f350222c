// @ts-check
/**
 * Platform names stay below src/platform. Above it, code speaks the model's vocabulary
 * (AX roles such as AXButton, Flags, the Desktop interface); what a backend's own names
 * mean (AT-SPI role and action names, X keysyms, D-Bus names) comes from the backend, as
 * its traits (src/platform/desktop.ts, src/model/vocabulary.ts). A Wayland or macOS
 * backend then only adds files under src/platform.
 *
 * The check is a short list of telltales, not a dictionary: a string that is one of these
 * words means code above the platform knows the platform's names.
 * - AT-SPI role names of two or more words. One-word role names ("menu", "text",
 *   "dialog") are ordinary words the code uses otherwise, and a few two-word ones are
 *   words of the query language as agents write them (QUERY_WORDS): those are left out.
 * - A literal given as, or compared with, an element's native name: comparing or
 *   switching on `nativeRole`, or a `native…` property (`native: ['push button']`,
 *   `nativeRole: 'filler'`) in a table. That is a native name, whatever the word.
 * - Pieces that only ever name AT-SPI, D-Bus or X11 internals: the AT-SPI bus names
 *   ("org.a11y"), X keysyms of the keypad and ISO groups ("KP_", "ISO_") and with Xlib's
 *   prefix ("XK_", in a string or a name), the XTest extension (the 'xtest' input route), EWMH properties
 *   ("_NET_"), the xwininfo tool.
 * The headless desktop and the bench (src/desktop, src/bench) bring up and measure the
 * Linux desktop itself: eslint.config.js leaves them out.
 */

/**
 * AT-SPI role names (as atspi_role_get_name spells them) that are no word of ours: a copy
 * of the names of two or more words in the backend's table (ATSPI_ROLES in
 * src/platform/linux/roles.ts), less QUERY_WORDS. The rule runs in plain Node, which
 * cannot load that TypeScript file; test/unit/lint-platform-names.test.ts fails when the
 * two drift apart.
 */
export const ATSPI_ROLE_NAMES = new Set([
  'accelerator label',
  'block quote',
  'check menu item',
  'color chooser',
  'column header',
  'combo box',
  'content deletion',
  'content insertion',
  'date editor',
  'description list',
  'description term',
  'description value',
  'desktop frame',
  'desktop icon',
  'directory pane',
  'document email',
  'document frame',
  'document presentation',
  'document spreadsheet',
  'document text',
  'document web',
  'drawing area',
  'file chooser',
  'focus traversable',
  'font chooser',
  'glass pane',
  'html container',
  'image map',
  'info bar',
  'input method window',
  'internal frame',
  'layered pane',
  'level bar',
  'list box',
  'list item',
  'math fraction',
  'math root',
  'menu bar',
  'option pane',
  'page tab',
  'page tab list',
  'password text',
  'popup menu',
  'progress bar',
  'push button',
  'push button menu',
  'radio menu item',
  'redundant object',
  'root pane',
  'row header',
  'scroll bar',
  'scroll pane',
  'spin button',
  'split pane',
  'status bar',
  'table cell',
  'table column header',
  'table row',
  'table row header',
  'tearoff menu item',
  'title bar',
  'toggle button',
  'tool bar',
  'tool tip',
  'tree item',
  'tree table',
]);

/**
 * AT-SPI role names that are also words of the query language (query/roles.ts): an agent
 * writes `check box:Bold` on any platform, so the words stay allowed above the platform.
 */
export const QUERY_WORDS = new Set(['check box', 'menu item', 'radio button']);

/** Pieces of a string that only AT-SPI, D-Bus or X11 code has a use for (compared case-blind). */
export const PLATFORM_PIECES = [
  'org.a11y',
  'org/a11y',
  'kp_',
  'iso_',
  'xk_',
  'xtest',
  '_net_',
  'xwininfo',
];

/** @param {string} text */
function telltale(text) {
  const lower = text.toLowerCase();
  if (ATSPI_ROLE_NAMES.has(lower)) return `the AT-SPI role name '${text}'`;
  const piece = PLATFORM_PIECES.find((p) => lower.includes(p));
  return piece ? `'${piece}' (an AT-SPI, D-Bus or X11 name)` : undefined;
}

const ADVICE =
  'platform names belong below src/platform: take them from the backend (Desktop.traits, model/vocabulary.ts)';

/** @param {any} node */
function isNativeRole(node) {
  const target = node.type === 'ChainExpression' ? node.expression : node;
  return (
    target.type === 'MemberExpression' &&
    !target.computed &&
    target.property.type === 'Identifier' &&
    target.property.name === 'nativeRole'
  );
}

/**
 * A name: a non-empty string literal (the empty string is "no native name").
 * @param {any} node
 * @returns {node is { type: 'Literal', value: string }}
 */
function isName(node) {
  return node?.type === 'Literal' && typeof node.value === 'string' && node.value !== '';
}

/**
 * A property whose key says it holds native names: native, nativeRole, nativeRoles, ….
 * @param {any} node a Property
 */
function isNativeKey(node) {
  const key = node.key;
  const name = key.type === 'Identifier' && !node.computed ? key.name : key.value;
  return typeof name === 'string' && /^native(?![a-z])/.test(name);
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keep AT-SPI, D-Bus and X11 names below src/platform' },
    schema: [],
  },
  create(context) {
    /** @param {any} node @param {string} found */
    const report = (node, found) =>
      context.report({ node, message: `${found} above the platform: ${ADVICE}` });
    /** @param {any} node @param {string} text */
    const check = (node, text) => {
      const found = telltale(text);
      if (found) report(node, found);
    };
    return {
      Literal(node) {
        if (typeof node.value === 'string') check(node, node.value);
      },
      // Xlib's keysym constants, should one be declared or imported by its C name.
      Identifier(node) {
        if (node.name.startsWith('XK_')) report(node, `the X keysym name '${node.name}'`);
      },
      TemplateElement(node) {
        check(node, node.value.cooked ?? node.value.raw);
      },
      BinaryExpression(node) {
        if (!['===', '!==', '==', '!='].includes(node.operator)) return;
        const sides = [node.left, node.right];
        const literal = sides.find(isName);
        if (literal && sides.some(isNativeRole)) {
          report(node, `a nativeRole compared with '${literal.value}'`);
        }
      },
      SwitchStatement(node) {
        if (!isNativeRole(node.discriminant)) return;
        for (const c of node.cases) {
          if (isName(c.test)) report(c, `a nativeRole switched on '${c.test.value}'`);
        }
      },
      Property(node) {
        if (!isNativeKey(node)) return;
        const values = node.value.type === 'ArrayExpression' ? node.value.elements : [node.value];
        const literal = values.find(isName);
        if (literal) report(node, `the native name '${literal.value}' in a table`);
      },
    };
  },
};

export default { rules: { 'platform-names': rule } };
