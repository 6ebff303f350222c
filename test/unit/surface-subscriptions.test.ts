/**
 * Subscriptions on a desktop made of data: which watch each URI starts, that events (and
 * only events) send one debounced update, and that unsubscribe and close stop the watches.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import type { AppsChange, Change, Desktop } from '../../src/platform/desktop.js';
import { REOPEN_DELAY_MS, Subscriptions } from '../../src/surface/subscriptions.js';
import { app, dataDesktop } from './helpers/pipeline-fixtures.js';

interface Watch<T> {
  emit: (change: T) => void;
  stopped: boolean;
}

function watchingDesktop() {
  const apps: Array<Watch<AppsChange>> = [];
  const trees = new Map<number, Array<Watch<Change>>>();
  const desktop = Object.assign(dataDesktop({ apps: [app(42, 'gedit'), app(43, 'galculator')] }), {
    async watchApps(onChange: (c: AppsChange) => void) {
      const w = { emit: onChange, stopped: false };
      apps.push(w);
      return async () => void (w.stopped = true);
    },
    async watchChanges(pid: number, onChange: (c: Change) => void) {
      const w = { emit: onChange, stopped: false };
      trees.set(pid, [...(trees.get(pid) ?? []), w]);
      return async () => void (w.stopped = true);
    },
  }) as unknown as Desktop;
  return { desktop, apps, trees };
}

let dir: string;
let updated: string[];
let fake: ReturnType<typeof watchingDesktop>;
let subs: Subscriptions;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-subs-'));
  updated = [];
  fake = watchingDesktop();
  const pipeline = new Pipeline(async () => fake.desktop, { ...DEFAULT_CONFIG, outDir: dir });
  subs = new Subscriptions(pipeline, dir, (uri) => updated.push(uri));
});

afterEach(async () => {
  vi.useRealTimers();
  await subs.closeAll();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('Subscriptions', () => {
  it('axpage://apps: one watch, one update per burst of registry events, none without', async () => {
    await subs.subscribe('axpage://apps');
    await subs.subscribe('axpage://apps');
    expect(fake.apps).toHaveLength(1);
    vi.useFakeTimers();
    vi.advanceTimersByTime(5000);
    expect(updated).toEqual([]);
    fake.apps[0].emit({ kind: 'added' });
    fake.apps[0].emit({ kind: 'added' });
    vi.advanceTimersByTime(1000);
    expect(updated).toEqual(['axpage://apps']);
  });

  it("an app's tree: watches that app's changes and updates that URI", async () => {
    await subs.subscribe('axpage://app/galculator/tree');
    expect([...fake.trees.keys()]).toEqual([43]);
    vi.useFakeTimers();
    fake.trees.get(43)![0].emit({ elementId: 'x' });
    vi.advanceTimersByTime(1000);
    expect(updated).toEqual(['axpage://app/galculator/tree']);
  });

  it('unsubscribe stops the watch, and later events send nothing', async () => {
    await subs.subscribe('axpage://app/42/windows');
    const watch = fake.trees.get(42)![0];
    await subs.unsubscribe('axpage://app/42/windows');
    expect(watch.stopped).toBe(true);
    vi.useFakeTimers();
    watch.emit({ elementId: 'x' });
    vi.advanceTimersByTime(5000);
    expect(updated).toEqual([]);
    expect(subs.watched()).toEqual([]);
  });

  it('closeAll stops every watch', async () => {
    await subs.subscribe('axpage://apps');
    await subs.subscribe('axpage://app/gedit/tree');
    await subs.subscribe('axpage://artifacts');
    expect(subs.watched()).toHaveLength(3);
    await subs.closeAll();
    expect(fake.apps[0].stopped).toBe(true);
    expect(fake.trees.get(42)![0].stopped).toBe(true);
    expect(subs.watched()).toEqual([]);
  });

  it('watches again when the watch was lost (a restarted bus), and close stops the new one', async () => {
    await subs.subscribe('axpage://apps');
    vi.useFakeTimers();
    fake.apps[0].emit({ kind: 'unknown', lost: true });
    await vi.advanceTimersByTimeAsync(REOPEN_DELAY_MS + 10);
    expect(fake.apps).toHaveLength(2);
    expect(fake.apps[0].stopped).toBe(true);
    updated.length = 0;
    fake.apps[1].emit({ kind: 'removed' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(updated).toEqual(['axpage://apps']);
    await subs.closeAll();
    expect(fake.apps[1].stopped).toBe(true);
  });

  it('refuses what it cannot watch: another URI, an app that is not running', async () => {
    await expect(subs.subscribe('axpage://status')).rejects.toThrow(
      /cannot subscribe to axpage:\/\/status: subscribable resources are/,
    );
    await expect(subs.subscribe('axpage://app/nothing-here/tree')).rejects.toThrow(/nothing-here/);
    expect(subs.watched()).toEqual([]);
  });
});
