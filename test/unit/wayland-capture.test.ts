/**
 * Capture through grim: the PPM reader, and the errors that name what is missing (no
 * WAYLAND_DISPLAY, no grim, a grim that fails, a bad region). Real captures from a
 * headless sway are in test/e2e/wayland-sway.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PlatformError } from '../../src/errors.js';
import { captureWayland, parsePpm } from '../../src/platform/linux/wayland/capture.js';

const ppm = (header: string, data: number[]): Buffer =>
  Buffer.concat([Buffer.from(header, 'latin1'), Buffer.from(data)]);

describe('parsePpm', () => {
  it('reads a P6 image as RGB', () => {
    const img = parsePpm(ppm('P6\n2 1\n255\n', [1, 2, 3, 4, 5, 6]));
    expect(img).toMatchObject({ width: 2, height: 1, channels: 3 });
    expect([...img.data]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('skips comments and any whitespace in the header', () => {
    const img = parsePpm(ppm('P6 # made by hand\n1\t1 # size\n255\r', [9, 8, 7]));
    expect([...img.data]).toEqual([9, 8, 7]);
  });

  it('keeps sample bytes that look like whitespace', () => {
    // The single byte after maxval ends the header; what follows is pixels, even "\n".
    expect([...parsePpm(ppm('P6\n1 1\n255\n', [10, 32, 35])).data]).toEqual([10, 32, 35]);
  });

  it('refuses other formats, 16-bit samples, bad sizes and short data', () => {
    expect(() => parsePpm(Buffer.from([0x89, 0x50, 0x4e, 0x47]))).toThrow(
      /starts with ".P", not "P6"/,
    );
    expect(() => parsePpm(ppm('P3\n1 1\n255\n', []))).toThrow(/not "P6"/);
    expect(() => parsePpm(ppm('P6\n1 1\n65535\n', [0, 0, 0, 0, 0, 0]))).toThrow(/maxval 65535/);
    expect(() => parsePpm(ppm('P6\n0 1\n255\n', []))).toThrow(/bad PPM header/);
    expect(() => parsePpm(ppm('P6\n-1 1\n255\n', []))).toThrow(/bad PPM header/);
    expect(() => parsePpm(ppm('P6\n2 2\n255\n', [1, 2, 3]))).toThrow(
      /cut short: 2x2 needs 12 bytes of samples, got 3/,
    );
  });
});

describe('captureWayland errors', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-grim-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A stand-in grim: a shell script. */
  const fakeGrim = (name: string, body: string): string => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return p;
  };

  it('needs WAYLAND_DISPLAY', async () => {
    const err = await captureWayland(undefined, { env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({ code: 'no_display', message: /WAYLAND_DISPLAY is not set/ });
  });

  it('names the package when grim is not installed', async () => {
    const err = await captureWayland(undefined, {
      env: { WAYLAND_DISPLAY: 'wayland-9' },
      grim: path.join(dir, 'no-such-grim'),
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'unsupported',
      message: /grim is not installed.*package grim/,
    });
  });

  it('passes on what grim says when it fails', async () => {
    const grim = fakeGrim('grim-nocomp', 'echo "failed to create display" >&2; exit 1');
    await expect(
      captureWayland(undefined, { env: { WAYLAND_DISPLAY: 'wayland-9' }, grim }),
    ).rejects.toMatchObject({
      code: 'failed',
      message: /grim failed \(1\): failed to create display/,
    });
    const noCopy = fakeGrim(
      'grim-noscreencopy',
      'echo "compositor doesn\'t support wlr-screencopy-unstable-v1" >&2; exit 1',
    );
    await expect(
      captureWayland(undefined, { env: { WAYLAND_DISPLAY: 'wayland-9' }, grim: noCopy }),
    ).rejects.toMatchObject({ code: 'unsupported', message: /does not offer wlr-screencopy/ });
  });

  it('passes a region as grim geometry and reads what grim writes', async () => {
    // Echoes its arguments into the comment of a 1x1 image.
    const grim = fakeGrim('grim-echo', 'printf "P6\\n# %s\\n1 1\\n255\\n\\001\\002\\003" "$*"');
    const img = await captureWayland(
      { x: 10, y: 20, w: 30, h: 40 },
      { env: { WAYLAND_DISPLAY: 'wayland-9' }, grim },
    );
    expect([...img.data]).toEqual([1, 2, 3]);
    const args = fakeGrim('grim-args', 'printf "%s|" "$@" >&2; exit 3');
    await expect(
      captureWayland({ x: 10, y: 20, w: 30, h: 40 }, { env: { WAYLAND_DISPLAY: 'w' }, grim: args }),
    ).rejects.toThrow(/-t\|ppm\|-g\|10,20 30x40\|-\|/);
  });

  it('says when grim writes something that is not an image, or hangs', async () => {
    const junk = fakeGrim('grim-junk', 'echo hello');
    await expect(
      captureWayland(undefined, { env: { WAYLAND_DISPLAY: 'w' }, grim: junk }),
    ).rejects.toThrow(/grim wrote an image that cannot be read: not a binary PPM/);
    const slow = fakeGrim('grim-slow', 'exec sleep 30');
    await expect(
      captureWayland(undefined, { env: { WAYLAND_DISPLAY: 'w' }, grim: slow, timeoutMs: 100 }),
    ).rejects.toMatchObject({ code: 'not_responding' });
  });

  it('refuses a region that is not whole pixels or has no area', async () => {
    const env = { WAYLAND_DISPLAY: 'w' };
    await expect(captureWayland({ x: 0.5, y: 0, w: 1, h: 1 }, { env })).rejects.toThrow(
      /x must be an integer, got 0.5/,
    );
    await expect(captureWayland({ x: 0, y: 0, w: 0, h: 1 }, { env })).rejects.toThrow(
      /positive size, got 0x1/,
    );
  });
});
