import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cpuSeconds, footprint, openFds, rssMiB } from '../../src/bench/proc-usage.js';
import { percentile } from '../../src/bench/soak.js';

describe('percentile (nearest rank)', () => {
  it('takes the sample at rank ceil(p·n)', () => {
    const s = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 .. 1, unsorted order
    expect(percentile(s, 0.5)).toBe(50);
    expect(percentile(s, 0.99)).toBe(99);
    expect(percentile(s, 1)).toBe(100);
    expect(percentile([7, 3, 5], 0.5)).toBe(5);
    expect(percentile([7, 3, 5], 0.99)).toBe(7);
  });

  it('is NaN without samples', () => {
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe('proc-usage readers', () => {
  it('count a descriptor this process opens and closes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-soak-test-'));
    try {
      const before = openFds(process.pid);
      const fd = fs.openSync(path.join(dir, 'f'), 'w');
      expect(openFds(process.pid)).toBe(before + 1);
      fs.closeSync(fd);
      expect(openFds(process.pid)).toBe(before);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('see resident memory grow when this process touches a large buffer', () => {
    const before = rssMiB(process.pid);
    const big = Buffer.alloc(64 * 1024 * 1024, 1); // zero-filled pages only count once written
    expect(rssMiB(process.pid)).toBeGreaterThan(before + 32);
    expect(big[big.length - 1]).toBe(1);
  });

  it('see CPU time go up while this process spins, by what it spent, and not while one sleeps', async () => {
    // Spin for 300 ms of this process's own CPU time (Node's count, the oracle), however
    // long that takes on a busy machine: a wall clock would give fewer ticks under load.
    const c0 = cpuSeconds(process.pid);
    const u0 = process.cpuUsage();
    let x = 0;
    for (;;) {
      x++;
      const used = process.cpuUsage(u0);
      if (used.user + used.system >= 300_000) break;
    }
    expect(x).toBeGreaterThan(0);
    // /proc counts in clock ticks (10 ms): within two ticks of Node's own figure, or more
    // (other threads of this process ran too).
    expect(cpuSeconds(process.pid) - c0).toBeGreaterThanOrEqual(0.28);
    // A process that only sleeps gains (next to) nothing, however long the wall clock runs.
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = sleeper.pid as number;
      const s0 = cpuSeconds(pid);
      await new Promise((r) => setTimeout(r, 300));
      expect(cpuSeconds(pid) - s0).toBeLessThan(0.05);
    } finally {
      sleeper.kill();
    }
  });

  it('read NaN for a process that is not there', () => {
    // pid_max is at most 2^22 on Linux: this pid cannot exist.
    const gone = 2 ** 22 + 1;
    expect(footprint(gone)).toEqual({ rssMiB: NaN, fds: NaN });
    expect(cpuSeconds(gone)).toBeNaN();
  });
});
