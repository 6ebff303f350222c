/**
 * Section 2: screenshot cost. Capture by each path X11.captureRegion offers (Xvfb's
 * framebuffer file, XShmGetImage, XGetImage as the baseline), PNG encode on its own, and
 * the default capture + encode, for the full screen and for the widget-factory window.
 */
import type { Rect } from '../model/element.js';
import { encodePng } from '../capture/index.js';
import { X11, type CaptureSource } from '../platform/linux/x11.js';
import type { BenchContext } from './context.js';
import { fmt, out, ratio, STAT_HEADERS, statCells, table, verdict } from './report.js';
import { stats, timeRuns, timeSync } from './stats.js';

const RUNS = 15;
const WARMUP = 2;
const TARGET_MS = 25;
const SOURCES: CaptureSource[] = ['framebuffer', 'shm', 'getimage'];

export async function screenshotSection(ctx: BenchContext): Promise<void> {
  const env = ctx.session.desktop.processEnv();
  const x11 = X11.open(env.DISPLAY, { framebuffer: env.XVFB_FB ?? false });
  try {
    const screen = x11.screenSize();
    const win = x11.listWindows().find((w) => w.mapped && w.pid === ctx.factory.pid);
    const targets: Array<{ what: string; rect: Rect }> = [
      { what: 'full screen', rect: { x: 0, y: 0, w: screen.w, h: screen.h } },
    ];
    if (win)
      targets.push({
        what: 'widget-factory window',
        rect: { x: win.x, y: win.y, w: win.w, h: win.h },
      });
    else out(`(no mapped window of pid ${ctx.factory.pid}: window rows skipped)\n`);
    if (!x11.usesFramebuffer)
      out(`(framebuffer path unavailable: ${x11.framebufferProblem ?? 'no XVFB_FB'})\n`);
    out(
      `${RUNS} runs after ${WARMUP} warm-ups each. Capture = RGB pixels of the region; encode = encodePng ` +
        "(bands of rows at level 3) of one captured frame, whole, as on an app's first call (a later call " +
        'deflates only the bands that changed: section 10); "capture + encode" is what a first call pays on ' +
        'the default path. ' +
        '"x faster" = the XGetImage median / this row\'s median (for encode rows: vs XGetImage capture + encode).',
    );
    out();
    const rows: string[][] = [];
    const totals: Array<{ what: string; median: number; full: boolean }> = [];
    for (const t of targets) {
      // What is captured: the rect clipped to the screen (a window may reach past its edge).
      const probe = x11.captureRegion(t.rect);
      const size =
        probe.width === t.rect.w && probe.height === t.rect.h
          ? `${probe.width}x${probe.height}`
          : `${probe.width}x${probe.height} (of ${t.rect.w}x${t.rect.h})`;
      const capture = new Map<CaptureSource, number>();
      const captureRows: string[][] = [];
      for (const src of SOURCES) {
        if (src === 'framebuffer' && !x11.usesFramebuffer) continue;
        try {
          const s = stats(timeSync(RUNS, WARMUP, () => x11.captureRegion(t.rect, src)));
          capture.set(src, s.median);
          captureRows.push([`capture ${src}`, t.what, size, ...statCells(s), '']);
        } catch (err) {
          captureRows.push([
            `capture ${src}`,
            t.what,
            size,
            `error: ${(err as Error).message}`,
            '',
            '',
            '',
            '',
          ]);
        }
      }
      const base = capture.get('getimage');
      for (const r of captureRows) {
        const src = r[0].replace('capture ', '') as CaptureSource;
        r[r.length - 1] = src === 'getimage' ? 'baseline' : ratio(base, capture.get(src));
      }
      rows.push(...captureRows);

      const frame = x11.captureRegion(t.rect);
      let png: Buffer = Buffer.alloc(0);
      const enc = stats(
        await timeRuns(RUNS, WARMUP, async () => {
          png = await encodePng(frame, { origin: { x: frame.x, y: frame.y } });
        }),
      );
      rows.push([
        `PNG encode (${Math.round(png.length / 1024)} KiB)`,
        t.what,
        size,
        ...statCells(enc),
        '',
      ]);
      const both = stats(
        await timeRuns(RUNS, WARMUP, async () => {
          const img = x11.captureRegion(t.rect);
          await encodePng(img, { origin: { x: img.x, y: img.y } });
        }),
      );
      const baseBoth = base !== undefined ? base + enc.median : undefined;
      rows.push([
        `capture + encode (default: ${frame.source})`,
        t.what,
        size,
        ...statCells(both),
        ratio(baseBoth, both.median),
      ]);
      totals.push({
        what: `${t.what} ${size}`,
        median: both.median,
        full: t.what === 'full screen',
      });
    }
    table(['what', 'region', 'size', ...STAT_HEADERS, 'x faster vs XGetImage'], rows);
    out(`Target: capture + encode <= ${TARGET_MS} ms at ${screen.w}x${screen.h} (information):`);
    out();
    for (const t of totals) {
      const v = t.full ? verdict(t.median <= TARGET_MS) : '(smaller region, for scale)';
      out(`- ${t.what}: ${fmt(t.median)} ms ${v}`);
    }
    out();
  } finally {
    x11.close();
  }
}
