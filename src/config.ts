/**
 * Runtime settings: defaults < environment (AXPAGE_*). Every value is validated so a
 * typo in the environment fails at start with a message naming the variable.
 */
import type { SnapshotLimits } from './model/element.js';

export interface Config {
  /** Bounds for one app walk. */
  limits: SnapshotLimits;
  /** Settle after an action: quiet period and upper bound. */
  settleQuietMs: number;
  settleMaxMs: number;
  /** How long a spawned child process may take to show a window before settle gives up on it. */
  spawnWaitMs: number;
  /** Capture screenshots at all (AXPAGE_SCREENSHOTS=0 turns them off; the summary says so). */
  screenshots: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const DEFAULT_CONFIG: Config = {
  limits: { maxElements: 5000, maxDepth: 60, timeBudgetMs: 5000 },
  settleQuietMs: 60,
  settleMaxMs: 1500,
  spawnWaitMs: 2500,
  screenshots: true,
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    limits: {
      maxElements: intFrom(env, 'AXPAGE_MAX_ELEMENTS', DEFAULT_CONFIG.limits.maxElements, 1),
      maxDepth: intFrom(env, 'AXPAGE_MAX_DEPTH', DEFAULT_CONFIG.limits.maxDepth, 1),
      timeBudgetMs: intFrom(env, 'AXPAGE_TIME_BUDGET_MS', DEFAULT_CONFIG.limits.timeBudgetMs, 1),
    },
    settleQuietMs: intFrom(env, 'AXPAGE_SETTLE_QUIET_MS', DEFAULT_CONFIG.settleQuietMs, 0),
    settleMaxMs: intFrom(env, 'AXPAGE_SETTLE_MAX_MS', DEFAULT_CONFIG.settleMaxMs, 0),
    spawnWaitMs: intFrom(env, 'AXPAGE_SPAWN_WAIT_MS', DEFAULT_CONFIG.spawnWaitMs, 0),
    screenshots: boolFrom(env, 'AXPAGE_SCREENSHOTS', DEFAULT_CONFIG.screenshots),
  };
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  // Blank counts as unset: Number(' ') is 0, which would silently zero a timing.
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`${name}=${raw} is not a whole number >= ${min}; unset it or fix it`);
  }
  return value;
}

function boolFrom(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name}=${env[name]} is not a boolean (use 1/0, true/false)`);
}
