/**
 * Runtime settings: defaults < environment (AXPAGE_*) < command-line flags of
 * `axpage serve`. One table describes every setting (its variable, its flag, its
 * help line), so the help text, the README and the parser cannot drift apart. Every
 * value is validated: a typo fails at start with a message naming the variable or flag.
 */
import type { SnapshotLimits } from './model/element.js';
import { DEFAULT_POLICY, MODES, parseList, type PolicySettings } from './guard/policy.js';

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
  /** Guard rails: mode, app allow/deny lists, rate limit. */
  policy: PolicySettings;
  /** The artifact dir when given by flag or variable (else the default under tmp). */
  outDir?: string;
  /** `new`: summaries list what this session has not shown yet; `full`: everything, every call. */
  visible: 'new' | 'full';
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
  policy: DEFAULT_POLICY,
  visible: 'new',
};

type Kind =
  | { type: 'int'; min: number }
  | { type: 'bool' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'list' }
  | { type: 'path' };

interface Setting {
  env: string;
  flag: string;
  /** The value's placeholder in the help text. */
  arg: string;
  help: string;
  kind: Kind;
  apply: (c: Config, v: number | boolean | string | string[]) => void;
}

/** Every setting of `axpage serve`, in the order the help lists them. */
export const SETTINGS: readonly Setting[] = [
  {
    env: 'AXPAGE_OUT',
    flag: 'out',
    arg: 'DIR',
    help: 'artifact dir (default <tmpdir>/axpage-<uid>); created 0700, an existing one must be ours and private',
    kind: { type: 'path' },
    apply: (c, v) => (c.outDir = v as string),
  },
  {
    env: 'AXPAGE_MODE',
    flag: 'mode',
    arg: 'MODE',
    help: 'full (default) | safe (no script tools, no typing into password fields) | read-only (no tool that changes an app is listed)',
    kind: { type: 'enum', values: MODES },
    apply: (c, v) => (c.policy.mode = v as PolicySettings['mode']),
  },
  {
    env: 'AXPAGE_ALLOW_APPS',
    flag: 'allow-apps',
    arg: 'LIST',
    help: 'only these apps may be observed or driven: comma-separated names (any case, * wildcards) or pids',
    kind: { type: 'list' },
    apply: (c, v) => (c.policy.allowApps = v as string[]),
  },
  {
    env: 'AXPAGE_DENY_APPS',
    flag: 'deny-apps',
    arg: 'LIST',
    help: 'these apps may never be observed or driven (wins over the allow list)',
    kind: { type: 'list' },
    apply: (c, v) => (c.policy.denyApps = v as string[]),
  },
  {
    env: 'AXPAGE_RATE_LIMIT',
    flag: 'rate-limit',
    arg: 'N',
    help: 'most mutating calls per app per minute (default 600; 0 = no limit)',
    kind: { type: 'int', min: 0 },
    apply: (c, v) => (c.policy.ratePerMinute = v as number),
  },
  {
    env: 'AXPAGE_ALLOW_SECURE_TYPING',
    flag: 'allow-secure-typing',
    arg: 'BOOL',
    help: 'in safe mode, allow typing into password fields (default false)',
    kind: { type: 'bool' },
    apply: (c, v) => (c.policy.allowSecureTyping = v as boolean),
  },
  {
    env: 'AXPAGE_MAX_ELEMENTS',
    flag: 'max-elements',
    arg: 'N',
    help: 'most elements one walk reads (default 5000; the cut is reported)',
    kind: { type: 'int', min: 1 },
    apply: (c, v) => (c.limits.maxElements = v as number),
  },
  {
    env: 'AXPAGE_MAX_DEPTH',
    flag: 'max-depth',
    arg: 'N',
    help: 'deepest level one walk reads (default 60)',
    kind: { type: 'int', min: 1 },
    apply: (c, v) => (c.limits.maxDepth = v as number),
  },
  {
    env: 'AXPAGE_TIME_BUDGET_MS',
    flag: 'time-budget-ms',
    arg: 'MS',
    help: 'longest one walk may take (default 5000)',
    kind: { type: 'int', min: 1 },
    apply: (c, v) => (c.limits.timeBudgetMs = v as number),
  },
  {
    env: 'AXPAGE_SETTLE_QUIET_MS',
    flag: 'settle-quiet-ms',
    arg: 'MS',
    help: 'after an action, how long the app must be quiet (default 60)',
    kind: { type: 'int', min: 0 },
    apply: (c, v) => (c.settleQuietMs = v as number),
  },
  {
    env: 'AXPAGE_SETTLE_MAX_MS',
    flag: 'settle-max-ms',
    arg: 'MS',
    help: 'longest settle after an action (default 1500)',
    kind: { type: 'int', min: 0 },
    apply: (c, v) => (c.settleMaxMs = v as number),
  },
  {
    env: 'AXPAGE_SPAWN_WAIT_MS',
    flag: 'spawn-wait-ms',
    arg: 'MS',
    help: 'how long a process an action started may take to show a window (default 2500)',
    kind: { type: 'int', min: 0 },
    apply: (c, v) => (c.spawnWaitMs = v as number),
  },
  {
    env: 'AXPAGE_VISIBLE',
    flag: 'visible',
    arg: 'MODE',
    help: 'new (default): visible_elements lists what this session has not been shown, else one "N unchanged since <file>" line | full: the best 30+10 on every call',
    kind: { type: 'enum', values: ['new', 'full'] },
    apply: (c, v) => (c.visible = v as Config['visible']),
  },
  {
    env: 'AXPAGE_SCREENSHOTS',
    flag: 'screenshots',
    arg: 'BOOL',
    help: 'take screenshots at all (default true)',
    kind: { type: 'bool' },
    apply: (c, v) => (c.screenshots = v as boolean),
  },
];

/**
 * The settings from the environment, then from flags (`{ 'max-depth': '10' }`, as
 * parseServeArgs returns them), over the defaults.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  flags: Record<string, string> = {},
): Config {
  const config: Config = structuredClone(DEFAULT_CONFIG);
  for (const setting of SETTINGS) {
    const fromEnv = env[setting.env];
    // Blank counts as unset: Number(' ') is 0, which would silently zero a timing.
    if (fromEnv !== undefined && fromEnv.trim() !== '') {
      setting.apply(config, parseValue(setting, fromEnv, `${setting.env}=${fromEnv}`));
    }
    const fromFlag = flags[setting.flag];
    if (fromFlag !== undefined) {
      setting.apply(config, parseValue(setting, fromFlag, `--${setting.flag} ${fromFlag}`));
    }
  }
  return config;
}

function parseValue(
  setting: Setting,
  raw: string,
  shown: string,
): number | boolean | string | string[] {
  const kind = setting.kind;
  const value = raw.trim();
  switch (kind.type) {
    case 'int': {
      const n = Number(value);
      if (value === '' || !Number.isInteger(n) || n < kind.min) {
        throw new ConfigError(`${shown} is not a whole number >= ${kind.min}; unset it or fix it`);
      }
      return n;
    }
    case 'bool': {
      const v = value.toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      throw new ConfigError(`${shown} is not a boolean (use 1/0, true/false)`);
    }
    case 'enum':
      if (!kind.values.includes(value)) {
        throw new ConfigError(`${shown} is not one of ${kind.values.join(', ')}`);
      }
      return value;
    case 'list':
      return parseList(value);
    case 'path':
      if (value === '') throw new ConfigError(`${shown}: give a directory`);
      return value;
  }
}

/**
 * `axpage serve` arguments: `--flag value` or `--flag=value` for each setting, and
 * `--help`. Anything else is an error (never silently ignored).
 */
export function parseServeArgs(argv: readonly string[]): {
  help: boolean;
  flags: Record<string, string>;
} {
  const byFlag = new Map(SETTINGS.map((s) => [s.flag, s]));
  const flags: Record<string, string> = {};
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    const setting = m ? byFlag.get(m[1]) : undefined;
    if (!m || !setting) {
      throw new ConfigError(
        `unknown argument '${arg}' for axpage serve (axpage serve --help lists the options)`,
      );
    }
    let value = m[2];
    if (value === undefined) {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) {
        throw new ConfigError(`--${setting.flag} needs a value (${setting.arg})`);
      }
      i++;
    }
    flags[setting.flag] = value;
  }
  return { help, flags };
}

/** The help text of `axpage serve`, from the settings table. */
export function serveHelp(): string {
  const rows = SETTINGS.map((s) => [`  --${s.flag} ${s.arg}`, `${s.help} [${s.env}]`]);
  const width = Math.max(...rows.map((r) => r[0].length)) + 2;
  return [
    'usage: axpage serve [options]   MCP server on stdio',
    '',
    'Each option can also be set by the environment variable in brackets; a flag wins over',
    'the variable. Unknown options are an error.',
    '',
    ...rows.map(([flag, help]) => flag.padEnd(width) + help),
    '  --help'.padEnd(width) + 'this text',
  ].join('\n');
}
