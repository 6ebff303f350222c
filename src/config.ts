/**
 * Runtime settings: defaults < JSON config file (`--config FILE`, AXPAGE_CONFIG) <
 * environment (AXPAGE_*) < command-line flags of `axpage serve`. One table describes
 * every setting (its flag, which is also its key in the file, its variable, its help
 * line), so the help text, docs/settings.md and the parser cannot drift apart. Every value is
 * validated: a typo fails at start with a message naming the file and key, the
 * variable or the flag.
 */
import fs from 'node:fs';
import { DEFAULT_HEAP_GROWTH_PERCENT } from './heap-growth.js';
import type { SnapshotLimits } from './model/element.js';
import {
  DEFAULT_POLICY,
  MODES,
  parseList,
  parseToolList,
  type PolicySettings,
} from './guard/policy.js';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_PAIRS,
  parseByteSize,
  type RetentionLimits,
} from './capture/limits.js';
import { CONFIRM_DESTRUCTIVE, type ConfirmDestructive } from './elicit/confirm.js';

/** off: no PNG; file: a PNG beside each tree file; inline: that PNG also as an image block. */
export type ScreenshotMode = 'off' | 'file' | 'inline';
export const SCREENSHOT_MODES: readonly ScreenshotMode[] = ['off', 'file', 'inline'];

export const TRANSPORTS = ['stdio', 'http'] as const;
export type TransportName = (typeof TRANSPORTS)[number];

/** The port `axpage serve --http` listens on unless told otherwise. */
export const DEFAULT_HTTP_PORT = 8939;

/** `axpage serve --http`: where it listens, who may talk to it. */
export interface HttpSettings {
  host: string;
  port: number;
  /** Unset: one is generated at start and printed once. */
  token?: string;
  /** A file holding the token (a mounted secret); read when the server starts. */
  tokenFile?: string;
  /** Host header names accepted besides the loopback ones. */
  allowedHosts: string[];
  /** Browser origins accepted besides loopback ones. */
  allowedOrigins: string[];
  /** A session with no request for this long ends; 0: never. */
  sessionIdleMs: number;
  /** Sessions open at once; the next initialize is refused (503). */
  maxSessions: number;
}

/** Shorter than this, a token guarding the desktop is too easy to guess. */
export const MIN_TOKEN_CHARS = 16;

export interface Config {
  /** Bounds for one app walk. */
  limits: SnapshotLimits;
  /** Settle after an action: quiet period and upper bound. */
  settleQuietMs: number;
  settleMaxMs: number;
  /** How long a spawned child process may take to show a window before settle gives up on it. */
  spawnWaitMs: number;
  /** Screenshots: none (the summary says so), a PNG file per call, or that file inline too. */
  screenshots: ScreenshotMode;
  /** How many pairs and bytes the artifact dir keeps before the oldest pairs go. */
  retention: RetentionLimits;
  transport: TransportName;
  http: HttpSettings;
  /** Guard rails: mode, app allow/deny lists, rate limit. */
  policy: PolicySettings;
  /** The artifact dir when given by flag or variable (else the default under tmp). */
  outDir?: string;
  /** `new`: summaries list what this session has not shown yet; `full`: everything, every call. */
  visible: 'new' | 'full';
  /** Keep non-secret typed text in the session log, so that `axpage replay` can type it again. */
  recordText: boolean;
  /** How far the old heap may grow past what a full GC left, in percent (heap-growth.ts). */
  heapGrowthPercent: number;
  /** Whether an action on an element that says it destroys is confirmed with the person. */
  confirmDestructive: ConfirmDestructive;
  /** Words that make an element destructive besides the built-in ones (elicit/destructive.ts). */
  destructiveWords: string[];
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const DEFAULT_CONFIG: Config = {
  limits: { maxElements: 5000, maxDepth: 60, timeBudgetMs: 5000 },
  settleQuietMs: 60,
  settleMaxMs: 1500,
  spawnWaitMs: 2500,
  screenshots: 'file',
  retention: { maxPairs: DEFAULT_MAX_PAIRS, maxBytes: DEFAULT_MAX_BYTES },
  transport: 'stdio',
  http: {
    host: '127.0.0.1',
    port: DEFAULT_HTTP_PORT,
    allowedHosts: [],
    allowedOrigins: [],
    sessionIdleMs: 30 * 60_000,
    maxSessions: 16,
  },
  policy: DEFAULT_POLICY,
  visible: 'new',
  recordText: false,
  heapGrowthPercent: DEFAULT_HEAP_GROWTH_PERCENT,
  confirmDestructive: 'ask',
  destructiveWords: [],
};

type Kind =
  | { type: 'int'; min: number; max?: number }
  | { type: 'text'; secret?: boolean; minLength?: number }
  | { type: 'bool' }
  | { type: 'enum'; values: readonly string[]; aliases?: Record<string, string> }
  | { type: 'list' }
  | { type: 'tools' }
  | { type: 'size' }
  | { type: 'path' };

interface Setting {
  env: string;
  flag: string;
  /** The value's placeholder in the help text. */
  arg: string;
  help: string;
  kind: Kind;
  apply: (c: Config, v: Value) => void;
}

type Value = number | boolean | string | string[];

/** Where a value came from, for its error message. */
type Source = { kind: 'file'; file: string } | { kind: 'env' } | { kind: 'flag' };

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
    env: 'AXPAGE_MAX_LAUNCHED_APPS',
    flag: 'max-launched-apps',
    arg: 'N',
    help: 'most apps launched by this server running at once (default 16; 0 = no limit)',
    kind: { type: 'int', min: 0 },
    apply: (c, v) => (c.policy.maxLaunchedApps = v as number),
  },
  {
    env: 'AXPAGE_LAUNCH_RATE',
    flag: 'launch-rate',
    arg: 'N',
    help: 'most app launches per minute (default 30; 0 = no limit)',
    kind: { type: 'int', min: 0 },
    apply: (c, v) => (c.policy.launchesPerMinute = v as number),
  },
  {
    env: 'AXPAGE_LAUNCH_ALLOW',
    flag: 'launch-allow',
    arg: 'LIST',
    help: 'in safe mode, programs ax_launch_app may start by command, matched against their real executable: names (* wildcards) or absolute paths; unset, safe mode launches installed apps (desktop) only',
    kind: { type: 'list' },
    apply: (c, v) => (c.policy.launchAllow = v as string[]),
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
    env: 'AXPAGE_CONFIRM_DESTRUCTIVE',
    flag: 'confirm-destructive',
    arg: 'WHEN',
    help: 'a click or activating key on an element whose name says it destroys: ask (default) asks the person when the client can be asked, else goes ahead and says so | always: ask, else refuse | never',
    kind: { type: 'enum', values: CONFIRM_DESTRUCTIVE },
    apply: (c, v) => (c.confirmDestructive = v as ConfirmDestructive),
  },
  {
    env: 'AXPAGE_DESTRUCTIVE_WORDS',
    flag: 'destructive-words',
    arg: 'LIST',
    help: "more words that make an element destructive, comma-separated (whole words, any case), besides delete, remove, discard, erase, format, empty trash, don't save and the like",
    kind: { type: 'list' },
    apply: (c, v) => (c.destructiveWords = v as string[]),
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
    env: 'AXPAGE_MAX_TABLE_ROWS',
    flag: 'max-table-rows',
    arg: 'N',
    help: 'most rows one walk reads of a table, list or tree, those in view first (default: all; the cut is reported)',
    kind: { type: 'int', min: 1 },
    apply: (c, v) => (c.limits.maxTableRows = v as number),
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
    arg: 'MODE',
    help: 'file (default): a PNG beside every tree file | inline: also returned as an image content block, for clients that cannot read files | off: none (1/true and 0/false still mean file and off)',
    kind: {
      type: 'enum',
      values: SCREENSHOT_MODES,
      aliases: {
        '1': 'file',
        true: 'file',
        yes: 'file',
        on: 'file',
        '0': 'off',
        false: 'off',
        no: 'off',
      },
    },
    apply: (c, v) => (c.screenshots = v as ScreenshotMode),
  },
  {
    env: 'AXPAGE_MAX_PAIRS',
    flag: 'max-pairs',
    arg: 'N',
    help: `most tree+screenshot pairs the artifact dir keeps; the oldest go first (default ${DEFAULT_MAX_PAIRS})`,
    kind: { type: 'int', min: 1 },
    apply: (c, v) => (c.retention.maxPairs = v as number),
  },
  {
    env: 'AXPAGE_MAX_BYTES',
    flag: 'max-bytes',
    arg: 'SIZE',
    help: 'most bytes the artifact dir keeps: 524288000, 500M, 2GiB (binary units; default 500MiB)',
    kind: { type: 'size' },
    apply: (c, v) => (c.retention.maxBytes = v as number),
  },
  {
    env: 'AXPAGE_TOOLS',
    flag: 'tools',
    arg: 'LIST',
    help: 'tools to list, comma-separated (ax_get_tree,ax_find: only these), and tools to leave out (-ax_click); a tool left out cannot be called',
    kind: { type: 'tools' },
    apply: (c, v) => {
      const { allowTools, denyTools } = parseToolList(v as string[]);
      c.policy.allowTools = allowTools;
      c.policy.denyTools = denyTools;
    },
  },
  {
    env: 'AXPAGE_RECORD_TEXT',
    flag: 'record-text',
    arg: 'BOOL',
    help: "keep typed text (never a password field's) in the session log so axpage replay can type it again; a privacy trade-off (default false: only its length)",
    kind: { type: 'bool' },
    apply: (c, v) => (c.recordText = v as boolean),
  },
  {
    env: 'AXPAGE_HEAP_GROWTH',
    flag: 'heap-growth',
    arg: 'PERCENT',
    help: `how far the server's old heap may grow past what a full garbage collection left, before the next one (default ${DEFAULT_HEAP_GROWTH_PERCENT}: to 3x; 0: V8's own rule, which on a heap this small collects in full every few calls)`,
    kind: { type: 'int', min: 0, max: 1000 },
    apply: (c, v) => (c.heapGrowthPercent = v as number),
  },
  {
    env: 'AXPAGE_TRANSPORT',
    flag: 'transport',
    arg: 'NAME',
    help: 'stdio (default) | http: Streamable HTTP on --host and --port, bearer token required (--http is --transport http)',
    kind: { type: 'enum', values: TRANSPORTS },
    apply: (c, v) => (c.transport = v as TransportName),
  },
  {
    env: 'AXPAGE_HOST',
    flag: 'host',
    arg: 'HOST',
    help: 'http: address to listen on (default 127.0.0.1; anything but loopback is warned about)',
    kind: { type: 'text' },
    apply: (c, v) => (c.http.host = v as string),
  },
  {
    env: 'AXPAGE_PORT',
    flag: 'port',
    arg: 'N',
    help: `http: port to listen on (default ${DEFAULT_HTTP_PORT}; 0 = any free port, the URL printed at start names it)`,
    kind: { type: 'int', min: 0, max: 65535 },
    apply: (c, v) => (c.http.port = v as number),
  },
  {
    env: 'AXPAGE_TOKEN',
    flag: 'token',
    arg: 'TOKEN',
    help: `http: bearer token clients must send (at least ${MIN_TOKEN_CHARS} characters); unset: a random one is printed once at start. Prefer the variable or the file: flags show in ps`,
    kind: { type: 'text', secret: true, minLength: MIN_TOKEN_CHARS },
    apply: (c, v) => (c.http.token = v as string),
  },
  {
    env: 'AXPAGE_TOKEN_FILE',
    flag: 'token-file',
    arg: 'FILE',
    help: 'http: a file holding the bearer token (a mounted secret: surrounding whitespace and the final newline are dropped), read at start; instead of --token',
    kind: { type: 'path' },
    apply: (c, v) => (c.http.tokenFile = v as string),
  },
  {
    env: 'AXPAGE_ALLOWED_HOSTS',
    flag: 'allowed-hosts',
    arg: 'LIST',
    help: 'http: Host header names accepted besides localhost, 127.0.0.1 and [::1] (any port)',
    kind: { type: 'list' },
    apply: (c, v) => (c.http.allowedHosts = v as string[]),
  },
  {
    env: 'AXPAGE_ALLOWED_ORIGINS',
    flag: 'allowed-origins',
    arg: 'LIST',
    help: 'http: browser origins accepted besides loopback ones, exactly (https://app.example.com); requests without Origin pass',
    kind: { type: 'list' },
    apply: (c, v) => (c.http.allowedOrigins = v as string[]),
  },
  {
    env: 'AXPAGE_SESSION_IDLE_MS',
    flag: 'session-idle-ms',
    arg: 'MS',
    help: 'http: a session with no request for this long ends, its refs and state with it (default 1800000 = 30 min; 0 = never)',
    kind: { type: 'int', min: 0 },
    apply: (c, v) => (c.http.sessionIdleMs = v as number),
  },
  {
    env: 'AXPAGE_MAX_SESSIONS',
    flag: 'max-sessions',
    arg: 'N',
    help: 'http: most sessions open at once (default 16); the next initialize gets 503 until one ends',
    kind: { type: 'int', min: 1 },
    apply: (c, v) => (c.http.maxSessions = v as number),
  },
];

/** `--config FILE` / AXPAGE_CONFIG: not a setting itself, where settings are read from. */
export const CONFIG_FLAG = 'config';
export const CONFIG_ENV = 'AXPAGE_CONFIG';
/** `--http`, a flag without a value: `--transport http`. */
export const HTTP_FLAG = '--http';

export interface LoadOptions {
  /** The server's tool names: `--tools` entries outside them are an error listing them. */
  knownTools?: readonly string[];
  /** Reads the config file (tests pass their own). */
  readFile?: (file: string) => string;
}

/**
 * The settings from the config file (flag `config`, else AXPAGE_CONFIG), then the
 * environment, then flags (`{ 'max-depth': '10' }`, as parseServeArgs returns them),
 * over the defaults.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  flags: Record<string, string> = {},
  opts: LoadOptions = {},
): Config {
  const config: Config = structuredClone(DEFAULT_CONFIG);
  const file = flags[CONFIG_FLAG] ?? nonBlank(env[CONFIG_ENV]);
  const fromFile = file === undefined ? new Map<Setting, string>() : readConfigFile(file, opts);
  for (const setting of SETTINGS) {
    const inFile = fromFile.get(setting);
    if (inFile !== undefined && file !== undefined) {
      setting.apply(config, parseValue(setting, inFile, { kind: 'file', file }, opts));
    }
    const fromEnv = nonBlank(env[setting.env]);
    if (fromEnv !== undefined) {
      setting.apply(config, parseValue(setting, fromEnv, { kind: 'env' }, opts));
    }
    const fromFlag = flags[setting.flag];
    if (fromFlag !== undefined) {
      setting.apply(config, parseValue(setting, fromFlag, { kind: 'flag' }, opts));
    }
  }
  // A flag of the HTTP transport on a stdio server would be silently ignored; the
  // environment and a config file may hold them for both (they apply once --http is on).
  const httpOnly = SETTINGS.filter((s) => s.help.startsWith('http:') && s.flag in flags);
  if (config.transport !== 'http' && httpOnly.length > 0) {
    const given = httpOnly.map((s) => `--${s.flag}`).join(', ');
    throw new ConfigError(
      `${given} applies to the HTTP transport, and this server runs on stdio; add --http, or drop ${given}`,
    );
  }
  return config;
}

/** Blank counts as unset: Number(' ') is 0, which would silently zero a timing. */
function nonBlank(raw: string | undefined): string | undefined {
  return raw !== undefined && raw.trim() !== '' ? raw : undefined;
}

/**
 * The config file's values, as the strings a flag would give: a JSON object whose keys
 * are flag names (`"max-depth": 10`, `"tools": ["ax_find", "-ax_click"]`).
 */
function readConfigFile(file: string, opts: LoadOptions): Map<Setting, string> {
  let text: string;
  try {
    text = (opts.readFile ?? ((f) => fs.readFileSync(f, 'utf8')))(file);
  } catch (err) {
    throw new ConfigError(
      `cannot read config file ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)}); fix --config / ${CONFIG_ENV}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config file ${file} is not JSON: ${(err as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ConfigError(
      `config file ${file} must hold a JSON object of settings, like {"max-depth": 10}`,
    );
  }
  const byFlag = new Map(SETTINGS.map((s) => [s.flag, s]));
  const values = new Map<Setting, string>();
  for (const [key, value] of Object.entries(json)) {
    const setting = byFlag.get(key);
    if (!setting) {
      throw new ConfigError(
        `config file ${file}: unknown key "${key}"; the keys are the flag names: ${SETTINGS.map((s) => s.flag).join(', ')}`,
      );
    }
    const listy = setting.kind.type === 'list' || setting.kind.type === 'tools';
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      values.set(setting, String(value));
    } else if (listy && Array.isArray(value) && value.every((v) => typeof v === 'string')) {
      values.set(setting, value.join(','));
    } else {
      throw new ConfigError(
        `config file ${file}: "${key}" is ${JSON.stringify(value)}; give a ${listy ? 'string or an array of strings' : 'string, number or boolean'} (${setting.arg})`,
      );
    }
  }
  return values;
}

function parseValue(setting: Setting, raw: string, source: Source, opts: LoadOptions): Value {
  const kind = setting.kind;
  const value = raw.trim();
  const shown =
    source.kind === 'file'
      ? `config file ${source.file}: "${setting.flag}": ${JSON.stringify(raw)}`
      : source.kind === 'env'
        ? `${setting.env}=${raw}`
        : `--${setting.flag} ${raw}`;
  switch (kind.type) {
    case 'int': {
      const n = Number(value);
      if (value === '' || !Number.isInteger(n) || n < kind.min || n > (kind.max ?? Infinity)) {
        const range = kind.max === undefined ? `>= ${kind.min}` : `from ${kind.min} to ${kind.max}`;
        throw new ConfigError(`${shown} is not a whole number ${range}; unset it or fix it`);
      }
      return n;
    }
    case 'text': {
      // A secret is never echoed: error messages reach logs and terminals.
      const named = kind.secret
        ? source.kind === 'file'
          ? `config file ${source.file}: "${setting.flag}"`
          : source.kind === 'env'
            ? setting.env
            : `--${setting.flag}`
        : shown;
      if (value === '') throw new ConfigError(`${named} is empty; unset it or give a value`);
      if (kind.secret && /\s/.test(value)) {
        throw new ConfigError(`${named} contains whitespace; a token is one word`);
      }
      if (kind.minLength !== undefined && value.length < kind.minLength) {
        throw new ConfigError(
          `${named} is ${value.length} characters; give at least ${kind.minLength} (or leave it unset to have one generated)`,
        );
      }
      return value;
    }
    case 'bool': {
      const v = value.toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      throw new ConfigError(`${shown} is not a boolean (use 1/0, true/false)`);
    }
    case 'enum': {
      const v = kind.aliases?.[value.toLowerCase()] ?? value;
      if (!kind.values.includes(v)) {
        throw new ConfigError(`${shown} is not one of ${kind.values.join(', ')}`);
      }
      return v;
    }
    case 'list':
      return parseList(value);
    case 'tools': {
      const entries = parseList(value);
      if (opts.knownTools) {
        const { unknown } = parseToolList(entries, opts.knownTools);
        if (unknown.length > 0) {
          throw new ConfigError(
            `${shown}: unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the tools are ${opts.knownTools.join(', ')}`,
          );
        }
      }
      return entries;
    }
    case 'size': {
      const n = parseByteSize(value);
      if (n === null || n < 1) {
        throw new ConfigError(
          `${shown} is not a size >= 1 byte (e.g. 524288000, 500M, 2GiB); unset it or fix it`,
        );
      }
      return n;
    }
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
    if (arg === HTTP_FLAG) {
      flags.transport = 'http';
      continue;
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    const setting =
      m?.[1] === CONFIG_FLAG
        ? { flag: CONFIG_FLAG, arg: 'FILE' }
        : m
          ? byFlag.get(m[1])
          : undefined;
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
    'usage: axpage serve [options]          MCP server on stdio',
    '       axpage serve --http [options]   MCP server over Streamable HTTP (http://127.0.0.1:PORT/mcp)',
    '',
    'Each option can also be set by the environment variable in brackets, or as a key (the',
    'flag name) in a JSON config file: defaults < file < variable < flag. Unknown options,',
    'keys and bad values are an error.',
    '',
    `${'  --config FILE'.padEnd(width)}JSON settings file, e.g. {"max-depth": 10, "tools": ["-ax_click"]} [${CONFIG_ENV}]`,
    ...rows.map(([flag, help]) => flag.padEnd(width) + help),
    `  ${HTTP_FLAG}`.padEnd(width) + '--transport http',
    '  --help'.padEnd(width) + 'this text',
  ].join('\n');
}

/**
 * The settings table rows of docs/settings.md (flag, variable, what), from the settings table: a
 * unit test checks docs/settings.md against it.
 */
export function settingsRows(): Array<[string, string, string]> {
  return [
    [
      `\`--${CONFIG_FLAG} FILE\``,
      `\`${CONFIG_ENV}\``,
      'JSON settings file: keys are the flag names',
    ],
    ...SETTINGS.map((s): [string, string, string] => [
      `\`--${s.flag} ${s.arg}\``,
      `\`${s.env}\``,
      s.help,
    ]),
  ];
}
