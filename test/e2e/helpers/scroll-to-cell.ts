/**
 * Scrolls a GTK3 tree view to one of its cells without our own tools: focusing a cell
 * (Component.GrabFocus) puts the tree view's cursor on its row, and GTK scrolls the cursor
 * row into view.
 */
import type { Snapshot } from '../../../src/model/element.js';
import type { AtspiBus } from '../../../src/platform/linux/atspi/bus.js';
import { parseId } from '../../../src/platform/linux/atspi/ids.js';

export async function scrollToCell(bus: AtspiBus, s: Snapshot, name: string): Promise<void> {
  const cell = s.elements.find((e) => e.nativeRole === 'table cell' && e.name === name);
  if (!cell) throw new Error(`no cell named ${name}`);
  const [dest, path] = parseId(cell.id);
  await bus.call(dest, path, 'org.a11y.atspi.Component', 'GrabFocus');
}
