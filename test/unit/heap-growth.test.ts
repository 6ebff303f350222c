import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyHeapGrowth, DEFAULT_HEAP_GROWTH_PERCENT } from '../../src/heap-growth.js';
import { DEFAULT_CONFIG, loadConfig } from '../../src/config.js';

describe('applyHeapGrowth (how far the old heap grows before a full collection)', () => {
  afterEach(() => void vi.restoreAllMocks());

  it("sets V8's heap growing percent; 0 leaves V8's own rule untouched", () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
    applyHeapGrowth(200);
    expect(set).toHaveBeenCalledWith('--heap-growing-percent=200');
    set.mockClear();
    applyHeapGrowth(0);
    expect(set).not.toHaveBeenCalled();
  });

  it('refuses what is not a whole number of percent, before touching V8', () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
    for (const bad of [-1, 1.5, Number.NaN]) {
      expect(() => applyHeapGrowth(bad)).toThrow(/whole number of percent/);
    }
    expect(set).not.toHaveBeenCalled();
  });

  it('is on by default, and AXPAGE_HEAP_GROWTH / --heap-growth set it', () => {
    expect(DEFAULT_CONFIG.heapGrowthPercent).toBe(DEFAULT_HEAP_GROWTH_PERCENT);
    expect(DEFAULT_HEAP_GROWTH_PERCENT).toBe(200);
    // A server started with no setting (what `axpage serve` loads) sets V8's flag.
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
    applyHeapGrowth(loadConfig({}).heapGrowthPercent);
    expect(set).toHaveBeenCalledWith('--heap-growing-percent=200');
    expect(loadConfig({ AXPAGE_HEAP_GROWTH: '0' }).heapGrowthPercent).toBe(0);
    expect(loadConfig({}, { 'heap-growth': '150' }).heapGrowthPercent).toBe(150);
    expect(() => loadConfig({ AXPAGE_HEAP_GROWTH: 'lots' })).toThrow(/AXPAGE_HEAP_GROWTH/);
  });
});
