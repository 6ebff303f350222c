/**
 * Which elements say they destroy something: their name or description holds one of the
 * words below (or a word the settings add), as whole words, in any case. A word inside
 * another word ("Undelete", "Deleted items", "Formatting") does not count.
 */

/** What an element's text says when acting on it destroys something. */
export const DESTRUCTIVE_WORDS: readonly string[] = [
  'delete',
  'remove',
  'discard',
  'erase',
  'format',
  'empty trash',
  'close without saving',
  "don't save",
  'do not save',
  'destroy',
  'wipe',
  'purge',
];

/** A typographic apostrophe reads as a plain one ("Don’t Save" is "Don't Save"). */
function normalized(text: string): string {
  return text.replace(/[\u2018\u2019\u02bc]/g, "'");
}

function escaped(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class DestructiveWords {
  private readonly pattern: RegExp | undefined;
  readonly words: readonly string[];

  constructor(extra: readonly string[] = []) {
    const words = [...DESTRUCTIVE_WORDS, ...extra]
      .map((w) => normalized(w).trim().toLowerCase())
      .filter((w) => w !== '');
    this.words = [...new Set(words)];
    // Longest first: "empty trash" is named, not a shorter word inside it.
    const alternatives = [...this.words]
      .sort((a, b) => b.length - a.length)
      .map((w) => w.split(/\s+/).map(escaped).join('\\s+'));
    this.pattern =
      alternatives.length === 0
        ? undefined
        : new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}_])`, 'iu');
  }

  /** The word (as listed) that makes one of these texts destructive, else undefined. */
  match(...texts: Array<string | undefined>): string | undefined {
    if (!this.pattern) return undefined;
    for (const text of texts) {
      if (!text) continue;
      const hit = this.pattern.exec(normalized(text));
      if (hit) return hit[0].toLowerCase().replace(/\s+/g, ' ');
    }
    return undefined;
  }
}
