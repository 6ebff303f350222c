/**
 * The undo journal of one server session: every action that reached the app, newest
 * last, with its way back (the previous value read before it was sent) or why there is
 * none. Bounded: the oldest entries go first, and a kept text is capped in src/actions.
 * In memory only: nothing of it is written to disk, and a password's value is never in it.
 */
import type { Reversal } from '../actions/index.js';

export interface JournalEntry {
  /** Increasing per session: a workflow notes the last one before its first step. */
  seq: number;
  tool: string;
  pid: number;
  app: string;
  /** What the action did (its summary's sentence; never typed text). */
  did: string;
  reversal: Reversal;
}

/** Actions remembered for undo; older ones are forgotten (with their previous values). */
export const JOURNAL_MAX_ENTRIES = 50;

export class UndoJournal {
  private entries: JournalEntry[] = [];
  private lastSeq = 0;

  constructor(private readonly max = JOURNAL_MAX_ENTRIES) {}

  record(entry: Omit<JournalEntry, 'seq'>): JournalEntry {
    const recorded = { ...entry, seq: ++this.lastSeq };
    this.entries.push(recorded);
    if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
    return recorded;
  }

  /** The sequence number of the newest entry (0 before any): a mark to roll back to. */
  get mark(): number {
    return this.lastSeq;
  }

  /** The newest entry, reversible or not. */
  last(): JournalEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  /** Entries recorded after `mark`, newest first (the order to take them back in). */
  since(mark: number): JournalEntry[] {
    return this.entries.filter((e) => e.seq > mark).reverse();
  }

  /** Removes an entry: it was undone (or its undo was tried and it cannot be again). */
  remove(seq: number): void {
    this.entries = this.entries.filter((e) => e.seq !== seq);
  }

  get size(): number {
    return this.entries.length;
  }
}
