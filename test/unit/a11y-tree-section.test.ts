/** The tree file's result sections (an audit's findings): before the tree, one line each. */
import { describe, expect, it } from 'vitest';
import { renderTreeFile } from '../../src/tree/index.js';
import { buildSnapshot, viewOf } from './helpers/synthetic.js';

describe('tree file result sections', () => {
  it('come after the header and before the tree, each line kept to one line', () => {
    const view = viewOf(
      buildSnapshot([
        {
          role: 'AXWindow',
          name: 'Main',
          frame: [0, 0, 200, 100],
          window: { active: true, title: 'Main' },
          children: [{ role: 'AXButton', name: '', frame: [10, 10, 30, 30] }],
        },
      ]),
    );
    const text = renderTreeFile({
      tool: 'ax_a11y_audit',
      view,
      sections: [
        { title: 'findings: 1', lines: ['! control-name e2 [AXButton] "" error: no\nname'] },
      ],
    });
    const lines = text.split('\n');
    const at = lines.indexOf('# findings: 1');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('! control-name e2 [AXButton] "" error: no name');
    expect(lines[at + 2]).toBe('# tree');
  });
});
