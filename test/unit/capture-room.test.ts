/**
 * The room check on data (what a pair needs, when a file system cannot take it, the
 * errors' codes and what they say to do), and the whole-line append on a short write.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, constants } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  lackOfRoom,
  LOG_RESERVE_BYTES,
  MIN_PAIR_BYTES,
  pairNeed,
  pairWriteFailure,
  unwrittenNote,
} from '../../src/capture/room.js';
import { appendWhole } from '../../src/guard/audit.js';

describe('pairNeed', () => {
  it('is the minimum for small or no pairs, twice the largest recent one above it', () => {
    expect(pairNeed([])).toBe(MIN_PAIR_BYTES + LOG_RESERVE_BYTES);
    expect(pairNeed([1000, 20_000])).toBe(MIN_PAIR_BYTES + LOG_RESERVE_BYTES);
    expect(pairNeed([3_000_000, 900_000])).toBe(6_000_000 + LOG_RESERVE_BYTES);
  });
});

describe('lackOfRoom', () => {
  it('says how much is free and needed, or that no inode is left', () => {
    expect(lackOfRoom({ freeBytes: 10 * MIN_PAIR_BYTES, freeFiles: 1000 }, MIN_PAIR_BYTES)).toBe(
      undefined,
    );
    expect(lackOfRoom({ freeBytes: 300 * 1024 }, 1.1 * 1024 * 1024)).toMatch(
      /only 0\.3 MiB free .* need about 1\.1 MiB/,
    );
    expect(lackOfRoom({ freeBytes: 10 * MIN_PAIR_BYTES, freeFiles: 1 }, 1)).toMatch(/inodes/);
    // A file system that does not count inodes is not refused for them.
    expect(lackOfRoom({ freeBytes: 10 * MIN_PAIR_BYTES }, 1)).toBe(undefined);
  });
});

describe('pairWriteFailure', () => {
  const wrap = (code: string) =>
    new Error('cannot write x', { cause: Object.assign(new Error(code), { code }) });
  it('a full disk is disk_full, anything else unwritable; both say what to do', () => {
    const full = pairWriteFailure(wrap('ENOSPC'), '/out');
    expect(full.code).toBe('disk_full');
    expect(full.actionable).toMatch(/ENOSPC.*AXPAGE_OUT/);
    expect(unwrittenNote(full)).toMatch(/full.*AXPAGE_OUT/);
    const ro = pairWriteFailure(wrap('EROFS'), '/out');
    expect(ro.code).toBe('artifacts_unwritable');
    expect(ro.actionable).toMatch(/read-only.*AXPAGE_OUT/);
  });
});

describe('appendWhole', () => {
  let dir: string | undefined;
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('takes a short write back: the file keeps only whole lines', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'axpage-append-'));
    const file = path.join(dir, 'log.jsonl');
    const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
    try {
      appendWhole(fd, Buffer.from('{"a":1}\n'));
      // A full disk takes 5 bytes of the next line, as write(2) does on ENOSPC.
      const short = (f: number, data: Buffer) => appendWholeRaw(f, data.subarray(0, 5));
      expect(() => appendWhole(fd, Buffer.from('{"b":22222}\n'), short)).toThrow(/only 5 of 12/);
      appendWhole(fd, Buffer.from('{"c":3}\n'));
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n{"c":3}\n');
  });
});

function appendWholeRaw(fd: number, data: Buffer): number {
  // The real write of the piece a full disk would take.
  appendWhole(fd, data);
  return data.length;
}
