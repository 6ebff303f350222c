/** The artifact dir's room for the call logs, on a real dir. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LogReserve, RESERVE_BYTES } from '../../src/capture/reserve.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-reserve-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('is made whole, given back once, and made again', () => {
  const reserve = LogReserve.in(dir);
  expect(reserve.held()).toBe(false);
  expect(reserve.release()).toBe(false);
  expect(reserve.refill()).toBe(true);
  expect(fs.statSync(reserve.file).size).toBe(RESERVE_BYTES);
  expect(fs.statSync(reserve.file).mode & 0o777).toBe(0o600);
  expect(reserve.release()).toBe(true);
  expect(fs.statSync(reserve.file).size).toBe(0);
  expect(reserve.release()).toBe(false);
  expect(reserve.refill()).toBe(true);
  expect(reserve.held()).toBe(true);
  expect(LogReserve.in(path.join(dir, '.'))).toBe(reserve);
});

it('never truncates a file planted under its name, and replaces it when made again', () => {
  const outside = path.join(dir, 'outside');
  fs.writeFileSync(outside, 'keep');
  const reserve = LogReserve.in(dir);
  fs.linkSync(outside, reserve.file);
  expect(reserve.held()).toBe(false);
  expect(reserve.release()).toBe(false);
  expect(reserve.refill()).toBe(true);
  expect(fs.readFileSync(outside, 'utf8')).toBe('keep');
  expect(fs.statSync(reserve.file).nlink).toBe(1);
});
