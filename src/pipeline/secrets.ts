/**
 * Texts this session knows to be secret (typed or set into a password field, or on the
 * clipboard right after a copy from one), kept only as keyed hashes: the memory can tell
 * a secret when it sees it again, and holds nothing that gives it back.
 */
import { createHmac, randomBytes } from 'node:crypto';

export class SecretMemory {
  /** Per server: the hashes mean nothing outside this process. */
  private readonly key = randomBytes(32);
  private readonly known = new Map<string, string>();

  /** Remember `text` as secret, and why (shown when a read is masked). */
  note(text: string, why: string): void {
    if (text === '') return;
    this.known.set(this.hash(text), why);
  }

  /** Why `text` is secret, or undefined when it is not one we know. */
  reason(text: string): string | undefined {
    return text === '' ? undefined : this.known.get(this.hash(text));
  }

  get size(): number {
    return this.known.size;
  }

  private hash(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64');
  }
}

/** Key names that copy or cut the selection: ctrl+c, ctrl+x, ctrl+Insert, shift+Delete. */
export function isCopyKey(key: string, modifiers: readonly string[] = []): boolean {
  const parts = key
    .split('+')
    .map((p) => p.trim().toLowerCase())
    .filter(Boolean);
  const name = parts.pop() ?? '';
  const mods = new Set([...parts, ...modifiers.map((m) => m.toLowerCase())]);
  const ctrl = mods.has('ctrl') || mods.has('control');
  if (ctrl && (name === 'c' || name === 'x' || name === 'insert')) return true;
  return mods.has('shift') && name === 'delete';
}
