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
 *   words of the query language as agents write them ("check box", "radio button",
 *   "menu item"): those are left out.
 * - Comparing an element's `nativeRole` with a literal: that is a native role name,
 *   whatever the word.
 * - Pieces that only ever name AT-SPI, D-Bus or X11 internals: the AT-SPI bus names
 *   ("org.a11y"), X keysyms of the keypad and ISO groups ("KP_", "ISO_"), the XTest
 *   extension, EWMH properties ("_NET_").
 * The headless desktop and the bench (src/desktop, src/harness, src/cli/desktop.ts,
 * src/bench) bring up and measure the Linux desktop itself: eslint.config.js leaves them
 * out.
 */

/** AT-SPI role names (as atspi_role_get_name spells them) that are no word of ours. */
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

/** Pieces of a string that only AT-SPI, D-Bus or X11 code has a use for (compared case-blind). */
export const PLATFORM_PIECES = ['org.a11y', 'org/a11y', 'kp_', 'iso_', 'xtest', '_net_'];

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

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keep AT-SPI, D-Bus and X11 names below src/platform' },
    schema: [],
  },
  create(context) {
    /** @param {any} node @param {string} text */
    const check = (node, text) => {
      const found = telltale(text);
      if (found) context.report({ node, message: `${found} above the platform: ${ADVICE}` });
    };
    return {
      Literal(node) {
        if (typeof node.value === 'string') check(node, node.value);
      },
      TemplateElement(node) {
        check(node, node.value.cooked ?? node.value.raw);
      },
      BinaryExpression(node) {
        if (!['===', '!==', '==', '!='].includes(node.operator)) return;
        const sides = [node.left, node.right];
        const literal = sides.find((s) => s.type === 'Literal' && typeof s.value === 'string');
        if (literal && sides.some(isNativeRole)) {
          context.report({
            node,
            message: `a nativeRole compared with '${/** @type {any} */ (literal).value}' above the platform: ${ADVICE}`,
          });
        }
      },
    };
  },
};

export default { rules: { 'platform-names': rule } };
