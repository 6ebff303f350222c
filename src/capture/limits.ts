/**
 * Retention caps: the defaults, the byte-size syntax and the checks. The server takes
 * its caps from the settings table (src/config.ts: --max-pairs/--max-bytes, the config
 * file, AXPAGE_MAX_PAIRS/AXPAGE_MAX_BYTES) and passes them to ArtifactStore.open; the
 * environment reading here serves only stores opened without caps (tools and tests).
 */
import { ArtifactError } from './errors.js';

export const DEFAULT_MAX_PAIRS = 500;
export const DEFAULT_MAX_BYTES = 500 * 1024 * 1024;

export interface RetentionLimits {
  maxPairs: number;
  maxBytes: number;
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
};

/**
 * `500`, `64k`, `500M`, `500MiB`, `1.5 GB`. Units are binary (K = 1024) whichever
 * spelling is used: for a disk cap the 5% between MB and MiB does not matter, and
 * one rule is easier to remember than two.
 */
export function parseByteSize(raw: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(raw);
  if (!m) return null;
  const bytes = Math.floor(Number(m[1]) * UNITS[m[2].toLowerCase()]);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

export function retentionFromEnv(env: NodeJS.ProcessEnv = process.env): RetentionLimits {
  return {
    maxPairs: pairsFrom(env.AXPAGE_MAX_PAIRS),
    maxBytes: bytesFrom(env.AXPAGE_MAX_BYTES),
  };
}

/** Checks caps given in code (ArtifactStore.open options) with the same rules. */
export function checkLimits(limits: RetentionLimits): RetentionLimits {
  if (!Number.isSafeInteger(limits.maxPairs) || limits.maxPairs < 1) {
    throw new ArtifactError(
      'config',
      `maxPairs must be a whole number >= 1, got ${limits.maxPairs}`,
    );
  }
  if (!Number.isSafeInteger(limits.maxBytes) || limits.maxBytes < 1) {
    throw new ArtifactError(
      'config',
      `maxBytes must be a whole number >= 1, got ${limits.maxBytes}`,
    );
  }
  return limits;
}

function pairsFrom(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_MAX_PAIRS;
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ArtifactError(
      'config',
      `AXPAGE_MAX_PAIRS=${raw} is not a whole number >= 1 (how many tree+screenshot pairs to keep; default ${DEFAULT_MAX_PAIRS}); unset it or fix it`,
    );
  }
  return value;
}

function bytesFrom(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_MAX_BYTES;
  const value = parseByteSize(raw);
  if (value === null || value < 1) {
    throw new ArtifactError(
      'config',
      `AXPAGE_MAX_BYTES=${raw} is not a size >= 1 byte (e.g. 524288000, 500M, 2GiB; default 500MiB); unset it or fix it`,
    );
  }
  return value;
}
