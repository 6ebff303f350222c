/**
 * Screen and region capture on a wlroots compositor (sway) through grim, which reads the
 * wlr-screencopy protocol. grim writes binary PPM to stdout (`-t ppm`): no PNG encoding
 * and decoding (54 ms for 1280x800 against 96 ms as PNG, docs/wayland.md), and PPM is RGB
 * as the rest of axpage wants it.
 *
 * grim finds the compositor through WAYLAND_DISPLAY, which may be an absolute socket path
 * (our headless session gives one): the caller passes the session's environment.
 */
import { spawn } from 'node:child_process';

import { PlatformError } from '../../../errors.js';
import type { Rect } from '../../../model/element.js';
import type { RawImage } from '../../desktop.js';

export interface RgbImage extends RawImage {
  channels: 3;
}

export interface GrimOptions {
  /** Environment for grim; it needs WAYLAND_DISPLAY. Default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** The grim program; default `grim` on PATH. */
  grim?: string;
  /** Bound for one capture; default 5000 ms. grim is then killed (by its pid). */
  timeoutMs?: number;
}

/**
 * Parses a binary PPM (P6, maxval 255), as grim writes it. Throws on anything else:
 * a short file, another format, 16-bit samples.
 */
export function parsePpm(buf: Buffer): RgbImage {
  // Header: "P6", width, height, maxval, separated by whitespace (comments allowed), then
  // exactly one whitespace byte before the samples.
  let pos = 0;
  const isSpace = (b: number): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
  const token = (): string => {
    for (;;) {
      while (pos < buf.length && isSpace(buf[pos])) pos++;
      if (buf[pos] !== 0x23) break; // '#': a comment to the end of the line
      while (pos < buf.length && buf[pos] !== 0x0a) pos++;
    }
    const start = pos;
    while (pos < buf.length && !isSpace(buf[pos])) pos++;
    return buf.toString('latin1', start, pos);
  };
  const magic = token();
  if (magic !== 'P6') {
    throw new Error(
      `not a binary PPM image: it starts with ${JSON.stringify(buf.toString('latin1', 0, 2))}, not "P6"`,
    );
  }
  const fields = [token(), token(), token()];
  const [width, height, maxval] = fields.map((t) => (/^\d+$/.test(t) ? Number(t) : NaN));
  if (![width, height, maxval].every(Number.isFinite) || width <= 0 || height <= 0) {
    throw new Error(`bad PPM header: width, height, maxval are ${JSON.stringify(fields)}`);
  }
  if (maxval !== 255) {
    throw new Error(`PPM with maxval ${maxval}: only 8-bit samples (maxval 255) are read`);
  }
  pos++; // the single whitespace byte after maxval
  const size = width * height * 3;
  if (buf.length - pos < size) {
    throw new Error(
      `PPM image cut short: ${width}x${height} needs ${size} bytes of samples, got ${buf.length - pos}`,
    );
  }
  return { width, height, channels: 3, data: buf.subarray(pos, pos + size) };
}

function checkRegion(rect: Rect): void {
  for (const k of ['x', 'y', 'w', 'h'] as const) {
    if (!Number.isInteger(rect[k])) {
      throw new TypeError(`capture region ${k} must be an integer, got ${rect[k]}`);
    }
  }
  if (rect.w <= 0 || rect.h <= 0) {
    throw new TypeError(`capture region must have a positive size, got ${rect.w}x${rect.h}`);
  }
}

/**
 * Captures the whole layout (every output), or `rect` of it in layout coordinates. The
 * image is always `rect`'s size: what lies outside every output comes back black, and a
 * rect outside them all is grim's error (measured with grim 1.4 on sway 1.7). Throws a
 * PlatformError: 'no_display' when WAYLAND_DISPLAY is unset, 'unsupported' when grim is not
 * installed or the compositor has no screencopy, 'failed' with grim's message otherwise.
 */
export async function captureWayland(rect?: Rect, opts: GrimOptions = {}): Promise<RgbImage> {
  const env = opts.env ?? process.env;
  if (!env.WAYLAND_DISPLAY) {
    throw new PlatformError(
      'no_display',
      'WAYLAND_DISPLAY is not set: grim has no compositor to capture',
    );
  }
  if (rect) checkRegion(rect);
  const args = ['-t', 'ppm'];
  if (rect) args.push('-g', `${rect.x},${rect.y} ${rect.w}x${rect.h}`);
  args.push('-');
  const out = await runGrim(opts.grim ?? 'grim', args, env, opts.timeoutMs ?? 5000);
  try {
    return parsePpm(out);
  } catch (err) {
    throw new PlatformError(
      'failed',
      `grim wrote an image that cannot be read: ${(err as Error).message}`,
    );
  }
}

function runGrim(
  grim: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(grim, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 4096) stderr += c.toString();
    });
    child.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        err.code === 'ENOENT'
          ? new PlatformError(
              'unsupported',
              `grim is not installed (${grim} not found): screenshots on sway need it ` +
                '(Debian/Ubuntu package grim)',
            )
          : new PlatformError('failed', `cannot run ${grim}: ${err.message}`),
      );
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) {
        reject(new PlatformError('not_responding', `grim took more than ${timeoutMs} ms`));
        return;
      }
      if (code === 0) {
        resolve(Buffer.concat(chunks));
        return;
      }
      const said = stderr.trim();
      // grim says this when the compositor lacks wlr-screencopy (KDE, GNOME).
      const noScreencopy = /screencopy/i.test(said);
      reject(
        new PlatformError(
          noScreencopy ? 'unsupported' : 'failed',
          `grim failed (${code ?? signal})${said ? `: ${said}` : ''}` +
            (noScreencopy ? ' (the compositor does not offer wlr-screencopy)' : ''),
          { display: env.WAYLAND_DISPLAY ?? '' },
        ),
      );
    });
  });
}
