import { describe, expect, it } from 'vitest';
import { closedWindows, diffSnapshots, hasShowingWindow } from '../../src/diff/index.js';
import type { Flag } from '../../src/model/element.js';
import { renderSummary } from '../../src/summary/index.js';
import { buildSnapshot, type Spec } from './helpers/synthetic.js';

const main: Spec = {
  role: 'AXWindow',
  name: 'Editor',
  id: 'w1',
  frame: [0, 0, 400, 300],
  window: { active: true },
  children: [{ role: 'AXButton', name: 'Options', id: 'b1', frame: [10, 10, 80, 24] }],
};

function dialog(flags: Flag[] = []): Spec {
  return {
    role: 'AXWindow',
    name: 'Options',
    id: 'w2',
    flags,
    frame: [50, 50, 200, 100],
    window: { dialog: true, modal: true },
    children: [{ role: 'AXButton', name: 'OK', id: 'b2', flags, frame: [60, 60, 80, 24] }],
  };
}

function closedBetween(before: Spec[], after: Spec[], acted?: number) {
  const b = buildSnapshot(before);
  const a = buildSnapshot(after);
  return closedWindows(b, a, diffSnapshots(b, a).matchOf, acted);
}

describe('closedWindows', () => {
  it('a window gone after the action closed; its own when the action was in it', () => {
    expect(closedBetween([main, dialog()], [main], 3)).toEqual([
      { before: 2, title: 'Options', own: true },
    ]);
    expect(closedBetween([main, dialog()], [main], 1)).toEqual([
      { before: 2, title: 'Options', own: false },
    ]);
  });

  it('a window the toolkit hid (offscreen) closed too; one hidden before did not', () => {
    expect(closedBetween([main, dialog()], [main, dialog(['offscreen'])])).toHaveLength(1);
    expect(closedBetween([main, dialog(['offscreen'])], [main, dialog(['offscreen'])])).toEqual([]);
  });

  it('an untitled popup that goes is not a window closing', () => {
    const popup: Spec = { role: 'AXWindow', name: '', id: 'p', frame: [0, 0, 50, 50] };
    expect(closedBetween([main, popup], [main])).toEqual([]);
  });

  it('hasShowingWindow: none once every titled window is gone or hidden', () => {
    expect(hasShowingWindow(buildSnapshot([dialog(['offscreen'])]))).toBe(false);
    expect(hasShowingWindow(buildSnapshot([main]))).toBe(true);
  });
});

describe('the summary says what ended first', () => {
  it('an app that exited, before what was done', () => {
    const { text, structured } = renderSummary({
      status: 'success',
      did: 'Clicked [AXButton] "Quit" e6',
      ended: { exited: { app: 'zenity', pid: 42 } },
    });
    expect(text).toContain(
      'summary: The app exited (zenity, pid 42). Clicked [AXButton] "Quit" e6.',
    );
    expect(structured.app_exited).toBe(true);
  });

  it('a closed window, before what was done and the counts', () => {
    const { text, structured } = renderSummary({
      status: 'success',
      did: 'Clicked [AXButton] "OK" e9',
      ended: {
        closed: [
          { title: 'Options', own: true },
          { title: 'Help', own: false },
        ],
      },
      changes: { added: 0, removed: 5, modified: 1, moved: 0 },
    });
    expect(text).toContain(
      'summary: Its window "Options" closed. The window "Help" closed. Clicked [AXButton] "OK" e9. 0 added, 5 removed, 1 modified.',
    );
    expect(structured.windows_closed).toEqual(['Options', 'Help']);
  });
});
