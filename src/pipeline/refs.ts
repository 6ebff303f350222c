/**
 * Element refs (`e42`). A ref is minted once for an element identity and carried
 * forward by the diff's matching, so it names the same element across calls. Refs
 * are unique across the whole server session, so a ref alone tells which app it
 * belongs to: `ax_click {ref: "e42"}` needs no `app`.
 */
import type { Element } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import { AxError } from '../errors.js';

export interface RefOrigin {
  pid: number;
  /** The snapshot whose walk first saw the element. */
  snapshotId: string;
  tool: string;
}

const REF_PATTERN = /^e([1-9][0-9]*)$/;

export function isRef(text: string): boolean {
  return REF_PATTERN.test(text.trim());
}

/** A ref's origin and the element it named the last time a view held it. */
export interface RefSighting extends RefOrigin {
  /** Absent when no presented view held the ref (a partial walk's ref never noted). */
  element?: Element;
  /** The snapshot the element was last seen in. */
  seenIn?: string;
}

export class RefRegistry {
  private counter = 0;
  private readonly origins = new Map<string, RefOrigin>();
  /**
   * ref → the element as last seen, so a stale ref's error can say what it was and how
   * to find it now. One entry per ref ever handed out, like `origins`.
   */
  private readonly sightings = new Map<string, { element: Element; snapshotId: string }>();

  mint(origin: RefOrigin): string {
    const ref = `e${++this.counter}`;
    this.origins.set(ref, origin);
    return ref;
  }

  /** Remember what every ref of a presented view names now (call once per presented view). */
  noteSeen(view: SnapshotView): void {
    const { elements } = view.snapshot;
    for (let i = 0; i < view.refs.length; i++) {
      this.sightings.set(view.refs[i], { element: elements[i], snapshotId: view.snapshotId });
    }
  }

  /** Where a ref came from and what it named when last seen; unknown_ref as originOf. */
  lastSeen(ref: string): RefSighting {
    const origin = this.originOf(ref);
    const seen = this.sightings.get(ref.trim());
    return seen ? { ...origin, element: seen.element, seenIn: seen.snapshotId } : origin;
  }

  /** The app a ref belongs to; a clear error for refs this session never handed out. */
  originOf(ref: string): RefOrigin {
    const key = ref.trim();
    if (!REF_PATTERN.test(key)) {
      throw new AxError(
        'bad_argument',
        `'${ref}' is not an element ref (refs look like e42)`,
        'Pass a ref from a summary or tree file, or use query to name the element',
      );
    }
    const origin = this.origins.get(key);
    if (!origin) {
      throw new AxError(
        'unknown_ref',
        `ref ${key} was never issued by this server session (the highest so far is e${this.counter})`,
        'Refs do not survive a server restart: run ax_get_tree or ax_find again and use the new ref',
      );
    }
    return origin;
  }
}
