/**
 * What the delivery functions work on and what they hand back. Platform-free: they speak
 * only to the Desktop interface, so a second backend shares them as they are.
 */
import type { Element } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import type { Desktop, KeyCombo } from '../platform/desktop.js';
import type { PasswordGuard } from './password-guard.js';
import type { Reversal } from './undo.js';

export type Delivery = 'background' | 'foreground';

/** The element or point an action is aimed at, resolved against the before view. */
export interface ActionTarget {
  index?: number;
  element?: Element;
  ref?: string;
  /** Where a pointer action lands: the element's centre or the given point. */
  point?: { x: number; y: number };
  /** For summaries: `[AXButton] "Submit" e12` or `(640,400)`. */
  label: string;
}

/** What a delivery function may use: the app, its view before the action, the desktop. */
export interface Scene {
  desktop: Desktop;
  pid: number;
  view: SnapshotView;
  /** Wait until the app has gone quiet after the input just sent (change events), bounded. */
  settle: () => Promise<void>;
  /** An element of the view as a target (its ref, label and centre). */
  targetAt: (index: number) => ActionTarget;
  /** Walks the app again, so `view` shows what earlier steps of this call did (focus). */
  refresh?: () => Promise<void>;
  /** Safe mode's guard on password fields (see password-guard.ts); absent when input may reach them. */
  passwordGuard?: PasswordGuard;
  /** Where text moved through the clipboard or a drag is told; absent: nothing listens. */
  transfers?: TextTransfers;
}

/**
 * Input that may move text from one field to another, told as it goes (the pipeline keeps
 * a secret's text secret wherever it lands: pipeline/transfers.ts). Each is called right
 * before (or after) the input is sent, the app fronted when the input needs it.
 */
export interface TextTransfers {
  /** `combo` is about to go to `focus`, the element with the keyboard focus (if one said so). */
  beforeKey(combo: KeyCombo, focus: Element | undefined): Promise<void>;
  /** `combo` went to `focus`. */
  afterKey(combo: KeyCombo, focus: Element | undefined): Promise<void>;
  /** A press is about to go to `element` (a click of that type, or its press action). */
  beforePress(
    element: Element | undefined,
    clickType: 'single' | 'double' | 'right',
  ): Promise<void>;
  /** A drag is about to go from `from` to `to`, the elements under its ends, ending at `end`. */
  beforeDrag(
    from: Element | undefined,
    to: Element | undefined,
    end: { x: number; y: number },
  ): Promise<void>;
}

/**
 * How the intended effect reads back from the app itself (not from a cached tree):
 * `landed` it is there, `absent` not (yet), `unreadable` it cannot be read (a password).
 */
export type Reading = 'landed' | 'absent' | 'unreadable';

export interface Delivered {
  /** What was done, e.g. `Clicked [AXButton] "Submit" e12`. Never the typed text. */
  did: string;
  route: string;
  delivery: Delivery;
  /** Put the previously frontmost window back (foreground delivery). */
  restore?: () => Promise<void>;
  /** Read the intended effect back from the app; polled a bounded time when absent. */
  probe?: () => Promise<Reading>;
  /**
   * What was done, said instead of `did` when the app is found to have exited afterwards
   * (`did` may say it still ran when the action's own wait ended).
   */
  didOnExit?: string;
  /**
   * What the app shows instead, when the probe reads the effect absent: a clause for the
   * summary ("; its text reads '…'"), read after the probe.
   */
  shows?: () => Promise<string | undefined>;
  /** Whether the target's own states, value or name changed (evidence that input landed). */
  touched?: () => Promise<boolean>;
  /**
   * Whether foreground input could help if nothing is seen. False when the input may
   * have landed unseen or sending it again would do harm.
   */
  escalate?: boolean;
  /** A step failed after earlier ones ran: reported, never swallowed. */
  error?: string;
  /**
   * The input may close the dialog it went to (a Return, an Escape, a button pressed):
   * the pipeline then gives a dialog still up a moment to go before it reports it.
   */
  mayDismiss?: boolean;
  /** How to take the action back (the previous value, read before it was sent), or why not. */
  undo?: Reversal;
  /** The element text went into: a key sent after the text is aimed there. */
  into?: ActionTarget;
}
