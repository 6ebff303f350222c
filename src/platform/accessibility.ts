/**
 * The accessibility source of a desktop: the apps on the accessibility bus, their trees,
 * what an element says and does, and the changes they announce. Linux: AT-SPI2 over D-Bus,
 * on X11 and Wayland alike; macOS: the AX API. Nothing here needs the window system, except
 * where a platform's trees leave out where their windows are (see the backend).
 */
import type { Element, Flag, Snapshot, SnapshotLimits } from '../model/element.js';

export interface AppInfo {
  pid: number;
  name: string;
  /** Number of top-level windows the app exposes. */
  windows: number;
  /** The app owns the active (frontmost) window. */
  active: boolean;
  /** False when the app lately left calls unanswered (hung or stopped): name and windows are its last known. */
  responding?: boolean;
  /** Not responding because its process is stopped (SIGSTOP, or a debugger holds it). */
  stopped?: boolean;
  /** The process's executable name (e.g. "firefox-esr"), when the platform knows it. */
  command?: string;
}

export interface SnapshotOptions extends SnapshotLimits {
  /** Walk only below this element (an Element.id); the root itself is included. */
  rootId?: string;
  /**
   * Whether the walk goes on into another process's tree plugged into this app's (an
   * XEmbed plug below its socket), by that process's pid; unset: it does.
   */
  enterApp?: (pid: number) => boolean | Promise<boolean>;
}

/**
 * One change event. When it is a state change the backend can name as a Flag, `flag`
 * and `on` say which and to what, so a cached view that already shows that state is
 * known to be still current (walking some apps makes them re-announce states).
 */
export interface Change {
  /** The element that changed; '' when the backend cannot tell (anything may have changed). */
  elementId: string;
  flag?: Flag;
  on?: boolean;
  /** The watch itself ended (the connection it ran on is gone): watch again to hear more. */
  lost?: boolean;
}

/** One change to the set of apps on the accessibility bus. */
export interface AppsChange {
  /** An app registered, left, or (the backend cannot tell) either. */
  kind: 'added' | 'removed' | 'unknown';
  /** The watch itself ended (the connection it ran on is gone): watch again to hear more. */
  lost?: boolean;
}

/**
 * One thing a person did in an app, as its accessibility events tell it: the focus came to
 * an element, text went into or out of an element, a state of an element was set or
 * cleared, a window (or dialog) opened or closed. What was typed is not carried: a
 * recorder reads a field's text from the tree (never a password field's).
 */
export type Activity =
  | { kind: 'focus'; elementId: string }
  | { kind: 'text'; elementId: string; inserted: boolean }
  | { kind: 'state'; elementId: string; flag: Flag; on: boolean }
  | { kind: 'window'; elementId: string; opened: boolean }
  /** The watch itself ended (the connection it ran on is gone). */
  | { kind: 'lost' };

/** Where an element's caret is and what of its text is selected (offsets in characters). */
export interface TextPlace {
  caret: number;
  /** The selected range [start, end), if any. */
  selection?: [number, number];
}

/**
 * How a single click reaches an element without a pointer: an action whose effect is a
 * click's (run on the element, or on its parent when the element is a part of it that has
 * no action of its own, like an expander's arrow), the keyboard focus (an element that
 * takes text: its own "activate" is what Enter does), a selection in its container (a row
 * of a list, a tab of a tab list, which the toolkit offers no action on), or nothing
 * fitting (only a real click will do).
 */
export type ClickRoute =
  | {
      via: 'action';
      action: string;
      on?: 'parent';
      /**
       * What the action does short of a click, when an app may tell the difference: a fact,
       * said of the action ("sets its state without a click ..."), for the summary.
       */
      caveat?: string;
    }
  | {
      via: 'focus';
      /**
       * What the focus does beyond taking keys, when it is what a click does there: a fact
       * said of the element ("puts ... on it"), for the summary. Unset: it takes text.
       */
      effect?: string;
    }
  | { via: 'select' }
  | {
      via: 'none';
      /**
       * Why nothing fits, when it is more than the element's lack of actions: a fact, no
       * advice, said of the element ("is a row of ...", following its name).
       */
      why?: string;
    };

/** A point a real click aims at instead of an element's centre, and what is drawn there. */
export interface ClickSpot {
  x: number;
  y: number;
  /** What the point is on, for the summary ("expander arrow"). */
  part: string;
}

/**
 * How text typed into a number field (a spin button) becomes its value, as its toolkit
 * does it on Enter in the field: an action of its own, or the Return key sent to it.
 */
export type CommitRoute = { via: 'action'; action: string } | { via: 'key'; key: string };

/** Apps, trees, element actions and reads, change events: what the accessibility API offers. */
/** What an app says is drawn at a point (AccessibilitySource.elementAt). */
export interface PointHit {
  id: string;
  /**
   * The app said the point is on this element and on none of its children (asked of it,
   * it answered itself): an element below it there is not drawn there.
   */
  onItself?: boolean;
}

export interface AccessibilitySource {
  listApps(): Promise<AppInfo[]>;
  /**
   * One app by pid, as listApps gives it, without reading every other app; null when the
   * backend cannot tell quickly (not known, gone, slow to answer): ask listApps then.
   */
  appByPid?(pid: number): Promise<AppInfo | null>;
  /**
   * An app this backend already talks to, by pid, with the name it registered: the app is
   * asked nothing but its liveness (see appsAnswering). Null when it is not known, has
   * exited, or is not answering (ask appByPid or listApps then).
   */
  knownApp?(pid: number): Promise<{ pid: number; name: string } | null>;
  /**
   * Which of these apps answer now: checked in parallel with a short deadline, so a frozen
   * app (stopped, or stuck in a busy main loop) costs a fraction of a call timeout, once.
   * Call it before asking apps anything that could hang on them. False: stopped, busy or
   * hung; absent: the pid is no app on the accessibility bus.
   */
  appsAnswering?(pids: number[]): Promise<Map<number, boolean>>;
  /** Walk one app, bounded by the limits, windows ordered dialogs first. */
  snapshot(pid: number, options: SnapshotOptions): Promise<Snapshot>;
  // Semantic (background) actions on elements, addressed by Element.id.
  /**
   * How a click on this element goes through accessibility, from its role, states and
   * actions, and its parent's (the element it is a part of), when it has one.
   */
  clickRoute(element: Element, parent?: Element): ClickRoute;
  /**
   * Where a real click on this element does what a click on it means, when that is neither
   * its centre nor a child element standing for that part (an expandable tree row whose
   * toolkit draws its expander arrow beside it, in the row's indentation, and reports no
   * element for the arrow): the point and what is there. Undefined: aim as usual.
   */
  clickSpot?(element: Element, parent?: Element): ClickSpot | undefined;
  /**
   * The element the app itself says is drawn at `p` (screen coordinates), asked of the
   * top-level `root` it is in (an element with its frame), as deep as the app answers;
   * null when the app says nothing is there. A toolkit may stop at an element that holds
   * the point without naming which of its children does, and may keep in its tree
   * elements it does not draw (a hidden page's): the caller judges the answer against the
   * element it aims at.
   */
  elementAt?(root: Element, p: { x: number; y: number }): Promise<PointHit | null>;
  /** How text typed into this number field is committed to its value. */
  commitRoute(element: Element): CommitRoute;
  doAction(elementId: string, action: string): Promise<void>;
  setText(elementId: string, text: string): Promise<void>;
  insertText(elementId: string, text: string, position: number): Promise<void>;
  focusElement(elementId: string): Promise<void>;
  /** Where the caret is in an element's text, and its selection; undefined: none readable. */
  textPlace?(elementId: string): Promise<TextPlace | undefined>;
  /** Puts caret and selection back as read; false when the element refused. */
  setTextPlace?(elementId: string, place: TextPlace): Promise<boolean>;
  /**
   * Chooses the element in its container's selection, as a click on a row or tab does: it
   * alone is selected afterwards (others the container had selected are let go). Throws
   * when the container offers no selection or does not select it.
   */
  selectElement(elementId: string): Promise<void>;
  /** Whether the element has the keyboard focus right now (read fresh). */
  hasFocus(elementId: string): Promise<boolean>;
  /** Set a numeric value (sliders, spin buttons, scroll bars) through the Value interface. */
  setValue(elementId: string, value: number): Promise<void>;
  /** Current numeric value and bounds of a Value-interface element. */
  /** `steps`: the value counts the toolkit's own steps (Qt: lines, items), not pixels. */
  readValue(
    elementId: string,
  ): Promise<{ value: number; min: number; max: number; step: number; steps?: boolean }>;
  /** Everything else the platform knows about an element (interfaces, toolkit attributes, raw states). */
  elementDetails(elementId: string): Promise<Record<string, unknown>>;
  /** Current text of an element, for read-back; undefined when it has none. Never for secure fields. */
  readText(elementId: string): Promise<string | undefined>;
  /**
   * One element read fresh from the app (states, value, name), for reading an action's
   * effect back rather than trusting a cached tree. Never the value of a secure field.
   */
  readElement(elementId: string): Promise<Element>;
  /**
   * Calls `onChange` whenever the app's tree or states change (best effort).
   * Resolves to an unsubscribe function. Used to settle after actions.
   */
  watchChanges(pid: number, onChange: (change: Change) => void): Promise<() => Promise<void>>;

  /**
   * Calls `onChange` whenever an app appears on the accessibility bus or leaves it (best
   * effort; `lost` when the watch itself ended). Resolves to an unsubscribe function.
   */
  watchApps(onChange: (change: AppsChange) => void): Promise<() => Promise<void>>;

  /**
   * Calls `onActivity` for what a person does in the app (focus, text, states, windows),
   * as far as its accessibility events tell it. Resolves to an unsubscribe function.
   */
  watchActivity?(
    pid: number,
    onActivity: (activity: Activity) => void,
  ): Promise<() => Promise<void>>;
}
