/**
 * A foreground click goes only where the element is drawn: a Qt combo box's list keeps its
 * rows in the tree once closed, with frames where no window is, and a click there would
 * land on the bare desktop. A wheel aimed at a list goes over that list. Oracle: the
 * fixture's own state lines (qt5_matrix.py) and the list's frame.
 */
import { expect, it } from 'vitest';
import { fixtureRun } from './helpers/fixture-run.js';
import { describeNeeding, pythonModule } from './helpers/needs.js';

describeNeeding(
  [pythonModule('PyQt5.QtWidgets', 'python3-pyqt5')],
  "a Qt combo box's closed list",
  () => {
    const run = fixtureRun('qt5_matrix.py');

    it('a row clicked in the foreground is refused as not drawn; the combo keeps its item', async () => {
      const open = await run.call('ax_click', { query: 'AXComboBox' });
      expect(open.isError, open.text).toBe(false);
      const close = await run.call('ax_key_press', { key: 'Escape' });
      expect(close.isError, close.text).toBe(false);
      const from = run.events().length;
      const r = await run.call('ax_click', { query: 'Green', delivery_mode: 'foreground' });
      expect(r.isError, r.text).toBe(true);
      expect(r.fields.error).toMatch(/is not drawn at \(\d+,\d+\)/);
      expect(r.text).toMatch(/Open what shows it first/);
      const pong = await run.call('ax_get_tree', {});
      expect(pong.isError, pong.text).toBe(false);
      expect(
        run
          .events()
          .slice(from)
          .filter((e) => e.widget === 'combo'),
      ).toEqual([]);
    });

    it('a list whose scroll bar the tree leaves out takes the wheel over itself, not the window', async () => {
      const list = await run.call('ax_find', { query: 'Fruits' });
      const [x, y, w, h] = String(list.text.match(/\((\d+,\d+ \d+x\d+)\)/)?.[1])
        .split(/[ ,x]/)
        .map(Number);
      const r = await run.call('ax_scroll', {
        query: 'Fruits',
        direction: 'down',
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(false);
      const at = r.text.match(/over \[AXList\] e\d+ at \((\d+),(\d+)\)/);
      expect(at, r.text).not.toBeNull();
      const [px, py] = [Number(at![1]), Number(at![2])];
      expect(px >= x && px < x + w && py >= y && py < y + h, `(${px},${py}) in the list`).toBe(
        true,
      );
    });
  },
);
