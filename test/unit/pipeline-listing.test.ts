import { describe, expect, it } from 'vitest';
import { renderListingFile } from '../../src/pipeline/listing.js';

describe('renderListingFile', () => {
  it('writes a header with the tool, title, count and screenshot, then one line per item', () => {
    const text = renderListingFile(
      'ax_list_apps',
      {
        title: 'running apps',
        lines: ['gedit pid=101 windows=1', 'zenity pid=202 windows=2 active'],
      },
      '/tmp/axpage-1000/1_ax_list_apps.png',
      undefined,
    );
    expect(text).toBe(
      [
        '# ax_list_apps: running apps',
        '# items: 2',
        '# screenshot: /tmp/axpage-1000/1_ax_list_apps.png',
        'gedit pid=101 windows=1',
        'zenity pid=202 windows=2 active',
        '',
      ].join('\n'),
    );
  });

  it('says why there is no screenshot', () => {
    const text = renderListingFile(
      'ax_check_access',
      { title: 'access', lines: ['ok'] },
      undefined,
      'capture timed out',
    );
    expect(text.split('\n')[2]).toBe('# screenshot: none (capture timed out)');
    const untaken = renderListingFile(
      'ax_check_access',
      { title: 'access', lines: [] },
      undefined,
      undefined,
    );
    expect(untaken.split('\n')[2]).toBe('# screenshot: none (not taken)');
  });

  it('prefers the screenshot path over an error given with it', () => {
    const text = renderListingFile('t', { title: 'x', lines: [] }, '/a.png', 'ignored');
    expect(text).toContain('# screenshot: /a.png\n');
    expect(text).not.toContain('ignored');
  });

  it('counts items and ends with one newline, for an empty listing too', () => {
    const empty = renderListingFile(
      'ax_list_apps',
      { title: 'running apps', lines: [] },
      undefined,
      'off',
    );
    expect(empty).toBe('# ax_list_apps: running apps\n# items: 0\n# screenshot: none (off)\n\n');
    const lines = Array.from({ length: 250 }, (_, k) => `app${k} pid=${1000 + k}`);
    const big = renderListingFile(
      'ax_list_apps',
      { title: 'running apps', lines },
      undefined,
      'off',
    );
    expect(big).toContain('\n# items: 250\n');
    const body = big.split('\n').slice(3, -1);
    expect(body).toEqual(lines);
    expect(big.endsWith('pid=1249\n')).toBe(true);
    // Every item line is greppable on its own: no header mark in front.
    expect(body.every((l) => !l.startsWith('#'))).toBe(true);
  });
});
