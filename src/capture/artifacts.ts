/**
 * The artifact store: claims unique basenames, writes files atomically and privately,
 * and keeps the directory under its caps by deleting the oldest pairs.
 *
 * Names are claimed with an exclusive create of the .txt (O_EXCL), so two calls in
 * one millisecond, or two servers sharing a directory, never get the same name: the
 * loser of a race sees EEXIST and takes the next `-<n>`.
 *
 * Retention works from an in-memory index (seeded by one directory scan, updated by
 * our own writes), so a call costs no directory walk. The directory is re-scanned at
 * most every `rescanMs`, which picks up pairs written by other processes. Pairs another
 * process wrote in the last FOREIGN_GRACE_MS are left to that process's own retention:
 * two servers sharing a directory never delete each other's newest pairs.
 *
 * All file operations go through the directory's descriptor (on Linux via
 * /proc/self/fd), so a symlink swapped in for the directory's path is never followed;
 * each new name first checks that the path still is that directory.
 */
import { lstat, readdir, unlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { claimNewFile, writeNewFile } from './safe-file.js';
import path from 'node:path';
import { openPrivateDir, type PrivateDir } from './dir.js';
import { ArtifactError } from './errors.js';
import { checkLimits, retentionFromEnv } from './limits.js';
import { checkRoom, noRoomForLogs, pairNeed } from './room.js';
import { LogReserve } from './reserve.js';
import {
  compareBase,
  formatBase,
  isTempFile,
  parseArtifactFile,
  toolSlug,
  type ArtifactKind,
  type BaseName,
} from './names.js';

export interface ArtifactStoreOptions {
  dir: string;
  /** Most pairs (basenames) to keep. Default: $AXPAGE_MAX_PAIRS, else 500. */
  maxPairs?: number;
  /** Most bytes (both files of all pairs) to keep. Default: $AXPAGE_MAX_BYTES, else 500 MiB. */
  maxBytes?: number;
  /** Where the defaults come from (process.env). */
  env?: NodeJS.ProcessEnv;
  /** Re-read the directory at most this often, for other processes' pairs. Default 60 s. */
  rescanMs?: number;
  /** Clock in epoch ms (tests). */
  now?: () => number;
}

export interface ArtifactNames {
  /** `<epoch-ms>[-<n>]_<tool>` */
  base: string;
  txtPath: string;
  pngPath: string;
}

export interface PruneResult {
  /** Basenames whose files were deleted, oldest first. */
  removed: string[];
  /** Pairs and bytes the store holds afterwards. */
  pairs: number;
  bytes: number;
}

interface Entry extends BaseName {
  txtBytes: number;
  pngBytes: number;
  /** Set by allocate, cleared when its tree is written: an in-flight call's pair is never pruned. */
  claimedAt?: number;
  /** Sequence number of our last touch, to merge a re-scan with writes made during it. */
  touched: number;
  /** This store claimed the name (else another process wrote it). */
  own?: boolean;
}

/** A claim whose tree never came (its caller failed) stops being protected after this. */
const CLAIM_TTL_MS = 5 * 60_000;
/** Temp files older than this are leftovers of a crash, never a write in progress. */
const STALE_TEMP_MS = 10 * 60_000;
const DEFAULT_RESCAN_MS = 60_000;
/**
 * Images made from a pair and written beside it (a visual diff, a marked copy): they go
 * with their pair when it is pruned (their bytes are not counted).
 */
export const COMPANIONS = ['diff.png', 'marks.png'] as const;
/** Pairs another process wrote more recently than this are its own business. */
export const FOREIGN_GRACE_MS = 10 * 60_000;
/** How many file operations a scan or prune runs at once. */
const IO_BATCH = 64;
const MAX_CLAIM_TRIES = 100_000;
/** Pairs whose sizes say how much room the next one needs. */
const RECENT_FOR_ROOM = 20;

export class ArtifactStore {
  private readonly index = new Map<string, Entry>();
  /** The index, oldest first. */
  private order: Entry[] = [];
  private bytes = 0;
  private lastMs = 0;
  private lastN = -1;
  private lastWritten?: string;
  private scannedAt = -Infinity;
  private seq = 0;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly dir: string,
    private pinned: PrivateDir,
    readonly maxPairs: number,
    readonly maxBytes: number,
    private readonly rescanMs: number,
    private readonly now: () => number,
  ) {}

  /**
   * Opens (creating 0700 if needed) the directory and seeds the index with one scan.
   * Throws ArtifactError: 'config' for bad caps, 'unsafe_dir' for a symlink, a
   * non-directory or a directory owned by someone else.
   */
  static async open(opts: ArtifactStoreOptions): Promise<ArtifactStore> {
    const fromEnv =
      opts.maxPairs === undefined || opts.maxBytes === undefined
        ? retentionFromEnv(opts.env ?? process.env)
        : undefined;
    const limits = checkLimits({
      maxPairs: opts.maxPairs ?? (fromEnv?.maxPairs as number),
      maxBytes: opts.maxBytes ?? (fromEnv?.maxBytes as number),
    });
    const dir = path.resolve(opts.dir);
    const store = new ArtifactStore(
      dir,
      await openPrivateDir(dir),
      limits.maxPairs,
      limits.maxBytes,
      opts.rescanMs ?? DEFAULT_RESCAN_MS,
      opts.now ?? Date.now,
    );
    await store.scan();
    // Room for the call logs, should another process fill the disk (see reserve.ts).
    LogReserve.in(dir).refill();
    return store;
  }

  /** Where file operations go: the pinned directory, never a path that could be swapped. */
  private get io(): string {
    return ioPath(this.pinned);
  }

  private ioFile(name: string): string {
    return path.join(this.io, name);
  }

  /**
   * The directory's path must still name the directory we pinned: a path swapped for a
   * symlink or another directory is refused (our files stay where they were).
   */
  async checkPath(): Promise<void> {
    const st = await lstat(this.dir).catch(() => undefined);
    if (st && st.dev === this.pinned.dev && st.ino === this.pinned.ino) return;
    if (!st) return; // removed: allocate re-creates it
    throw new ArtifactError(
      'unsafe_dir',
      `artifact dir ${this.dir} was replaced while running (it is now ${st.isSymbolicLink() ? 'a symbolic link' : 'another file or directory'}); nothing is written there. Restore it, or restart with AXPAGE_OUT set to a directory of your own`,
    );
  }

  /**
   * Before an action acts: the dir can be written and has room for a pair (twice the
   * largest of the recent ones, at least a minimum; see room.ts). Throws a clear AxError
   * (`disk_full`, `artifacts_unwritable`) when not.
   */
  async checkRoom(): Promise<void> {
    const recent = this.order.slice(-RECENT_FOR_ROOM).map((e) => e.txtBytes + e.pngBytes);
    await checkRoom(this.io, this.dir, pairNeed(recent));
    // The logs' reserve was given to lines written on a full disk: no action until it is back.
    if (!LogReserve.in(this.dir).refill()) throw noRoomForLogs(this.dir);
  }

  /**
   * Takes back a pair whose writing failed: both files (the claimed tree, a screenshot
   * already written) go, so no empty or half pair is left behind.
   */
  async discard(names: ArtifactNames): Promise<void> {
    const entry = this.index.get(names.base);
    if (entry) {
      this.index.delete(entry.base);
      this.order = this.order.filter((e) => e !== entry);
      this.bytes -= entry.txtBytes + entry.pngBytes;
      if (this.lastWritten === entry.base) this.lastWritten = undefined;
    }
    await Promise.all(
      (['txt', 'png'] as const).map((kind) =>
        unlink(this.ioFile(`${names.base}.${kind}`)).catch(() => undefined),
      ),
    );
  }

  /** Releases the directory's descriptor. */
  async close(): Promise<void> {
    await this.pinned.handle.close().catch(() => undefined);
  }

  /** Pairs and bytes currently indexed. */
  get stats(): { pairs: number; bytes: number } {
    return { pairs: this.order.length, bytes: this.bytes };
  }

  /**
   * Claims a fresh basename for `tool` (the `ax_` prefix is dropped) by creating its
   * .txt exclusively (empty, 0600). Write the PNG and the tree to the returned paths.
   */
  async allocate(tool: string): Promise<ArtifactNames> {
    const slug = toolSlug(tool);
    await this.checkPath();
    let recreated = false;
    for (let tries = 0; tries < MAX_CLAIM_TRIES; tries++) {
      const { ms, n } = this.nextSlot();
      const base = formatBase(ms, n, slug);
      const txtPath = path.join(this.dir, `${base}.txt`);
      const pngPath = path.join(this.dir, `${base}.png`);
      try {
        claimNewFile(this.ioFile(`${base}.txt`));
      } catch (err) {
        // Taken (by another server on this dir, or a leftover): try the next slot.
        if (errCode(err) === 'EEXIST') continue;
        if (errCode(err) === 'ENOENT' && !recreated) {
          // Someone removed the directory under us (a tmp cleaner, a user): make it again.
          recreated = true;
          await this.close();
          this.pinned = await openPrivateDir(this.dir);
          this.resetIndex();
          continue;
        }
        throw new ArtifactError('io', `cannot create ${txtPath}: ${errText(err)}`, { cause: err });
      }
      if (await exists(this.ioFile(`${base}.png`))) {
        // A screenshot without its tree (a crashed writer): not a name to reuse.
        await unlink(this.ioFile(`${base}.txt`)).catch(() => undefined);
        continue;
      }
      const entry = { base, ms, n, tool: slug, txtBytes: 0, pngBytes: 0, own: true };
      this.add({ ...entry, claimedAt: this.now(), touched: ++this.seq });
      return { base, txtPath, pngPath };
    }
    throw new ArtifactError('io', `no free artifact name for ${slug} in ${this.dir}`);
  }

  /**
   * The next (ms, n) to try, taken synchronously so concurrent calls in this process
   * never race for one slot. Never steps back, even if the wall clock does: names keep
   * sorting in call order.
   */
  private nextSlot(): { ms: number; n: number } {
    const ms = Math.max(Math.floor(this.now()), this.lastMs);
    const n = ms === this.lastMs ? this.lastN + 1 : 0;
    this.lastMs = ms;
    this.lastN = n;
    return { ms, n };
  }

  /**
   * Gives a claimed name back when its call failed before writing anything: the empty
   * .txt goes, so no tree file is left that never had a tree. A name something was
   * written to is kept (the pair, or what of it exists, stays as written).
   */
  async release(names: ArtifactNames): Promise<void> {
    const entry = this.index.get(names.base);
    if (!entry || entry.claimedAt === undefined || entry.txtBytes > 0 || entry.pngBytes > 0) {
      return;
    }
    this.index.delete(entry.base);
    this.order = this.order.filter((e) => e !== entry);
    await unlink(this.ioFile(`${entry.base}.txt`)).catch(() => undefined);
  }

  /** Writes the tree file (0600, atomically: replaces the claimed empty .txt). */
  async writeText(filePath: string, text: string): Promise<void> {
    await this.writeAtomic(filePath, text, Buffer.byteLength(text));
  }

  /** Writes the screenshot (0600, atomically). */
  async writeBinary(filePath: string, data: Buffer | Uint8Array): Promise<void> {
    await this.writeAtomic(filePath, data, data.byteLength);
  }

  /**
   * Deletes the oldest pairs (both files) until at most maxPairs pairs and maxBytes
   * bytes remain. Never deletes the pair written last, pairs still being written, or
   * any file whose name is not one of ours. Calls are serialized.
   */
  prune(): Promise<PruneResult> {
    const run = this.queue.then(() => this.pruneNow());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async pruneNow(): Promise<PruneResult> {
    if (this.now() - this.scannedAt >= this.rescanMs) await this.scan();
    const now = this.now();
    let pairs = this.order.length;
    let bytes = this.bytes;
    const victims: Entry[] = [];
    for (const entry of this.order) {
      if (pairs <= this.maxPairs && bytes <= this.maxBytes) break;
      if (entry.base === this.lastWritten) continue;
      if (entry.claimedAt !== undefined && now - entry.claimedAt < CLAIM_TTL_MS) continue;
      if (!entry.own && now - entry.ms < FOREIGN_GRACE_MS) continue;
      victims.push(entry);
      pairs--;
      bytes -= entry.txtBytes + entry.pngBytes;
    }
    if (victims.length === 0) return { removed: [], ...this.stats };
    // Drop them from the index first, so nothing running meanwhile counts them.
    const gone = new Set(victims);
    this.order = this.order.filter((e) => !gone.has(e));
    for (const entry of victims) {
      this.index.delete(entry.base);
      this.bytes -= entry.txtBytes + entry.pngBytes;
    }
    await inBatches(victims, async (entry) => {
      await Promise.all(
        [...(['txt', 'png'] as const), ...COMPANIONS].map((kind) =>
          unlink(this.ioFile(`${entry.base}.${kind}`)).catch(() => undefined),
        ),
      );
    });
    return { removed: victims.map((e) => e.base), ...this.stats };
  }

  private async writeAtomic(filePath: string, data: string | Buffer | Uint8Array, size: number) {
    const { entry, kind } = this.entryFor(filePath);
    try {
      // Synchronous on purpose: a call's result waits for its files, which are small and
      // local. The tree file with its rename and prune takes 0.6-0.8 ms per call here; through
      // the thread pool, four hops back to a busy event loop took 1.0-1.4 (bench section 10).
      writeNewFile(this.ioFile(path.basename(filePath)), data);
    } catch (err) {
      throw new ArtifactError('io', `cannot write ${filePath}: ${errText(err)}`, { cause: err });
    }
    // The entry may have been dropped by a re-scan meanwhile: account on the live one.
    const live = this.index.get(entry.base) ?? this.add(entry);
    const field = kind === 'txt' ? 'txtBytes' : 'pngBytes';
    this.bytes += size - live[field];
    live[field] = size;
    if (kind === 'txt') live.claimedAt = undefined;
    live.touched = ++this.seq;
    this.lastWritten = live.base;
  }

  /** The index entry for a path in our directory with one of our names, else a clear error. */
  private entryFor(filePath: string): { entry: Entry; kind: ArtifactKind } {
    const resolved = path.resolve(filePath);
    const parsed = parseArtifactFile(path.basename(resolved));
    if (!parsed || path.dirname(resolved) !== this.dir) {
      throw new ArtifactError(
        'bad_name',
        `${filePath} is not an artifact path of ${this.dir} (use the paths allocate() returns)`,
      );
    }
    const { kind, ...name } = parsed;
    const entry = this.index.get(name.base) ?? { ...name, txtBytes: 0, pngBytes: 0, touched: 0 };
    return { entry, kind };
  }

  private add(entry: Entry): Entry {
    this.index.set(entry.base, entry);
    this.bytes += entry.txtBytes + entry.pngBytes;
    // New names are almost always the newest: search from the end.
    let i = this.order.length;
    while (i > 0 && compareBase(this.order[i - 1], entry) > 0) i--;
    this.order.splice(i, 0, entry);
    return entry;
  }

  private resetIndex(): void {
    this.index.clear();
    this.order = [];
    this.bytes = 0;
  }

  /**
   * Rebuilds the index from the directory: our pairs with their sizes. Entries we
   * touched while the scan ran keep their in-memory state (it is newer). Also removes
   * our own temp files left by a crash.
   */
  private async scan(): Promise<void> {
    const mark = this.seq;
    const started = this.now();
    let names: string[];
    try {
      names = await readdir(this.io);
    } catch (err) {
      throw new ArtifactError('io', `cannot list ${this.dir}: ${errText(err)}`, { cause: err });
    }
    const found = new Map<string, Entry>();
    const files: Array<{ name: string; entry: Entry; kind: ArtifactKind }> = [];
    const temps: string[] = [];
    for (const name of names) {
      const parsed = parseArtifactFile(name);
      if (!parsed) {
        if (isTempFile(name)) temps.push(name);
        continue;
      }
      const { kind, ...base } = parsed;
      let entry = found.get(base.base);
      if (!entry) {
        entry = { ...base, txtBytes: 0, pngBytes: 0, touched: 0 };
        found.set(base.base, entry);
      }
      files.push({ name, entry, kind });
    }
    await inBatches(files, async ({ name, entry, kind }) => {
      const st = await lstat(this.ioFile(name)).catch(() => undefined);
      if (st?.isFile()) entry[kind === 'txt' ? 'txtBytes' : 'pngBytes'] = st.size;
    });
    await inBatches(temps, async (name) => {
      const file = this.ioFile(name);
      const st = await lstat(file).catch(() => undefined);
      if (st?.isFile() && started - st.mtimeMs > STALE_TEMP_MS)
        await unlink(file).catch(() => undefined);
    });
    for (const old of this.index.values()) {
      const fresh = found.get(old.base);
      if (old.touched > mark) found.set(old.base, old);
      else if (fresh) {
        if (old.claimedAt !== undefined) fresh.claimedAt = old.claimedAt;
        if (old.own) fresh.own = true;
      }
    }
    this.resetIndex();
    const sorted = [...found.values()].sort(compareBase);
    for (const entry of sorted) {
      this.index.set(entry.base, entry);
      this.bytes += entry.txtBytes + entry.pngBytes;
    }
    this.order = sorted;
    this.scannedAt = this.now();
  }
}

async function inBatches<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += IO_BATCH) {
    await Promise.all(items.slice(i, i + IO_BATCH).map(fn));
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}

function errCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Linux reaches a directory through its descriptor; elsewhere the path is all there is. */
const PROC_FD = '/proc/self/fd';
let procFdWorks: boolean | undefined;

function ioPath(dir: PrivateDir): string {
  procFdWorks ??= process.platform === 'linux' && existsSync(PROC_FD);
  return procFdWorks ? `${PROC_FD}/${dir.handle.fd}` : dir.path;
}
