/**
 * The narrow interface between axpage and a desktop platform. Everything above it
 * (pipeline, tree, diff, summary, capture, tools) is platform-free. Linux implements
 * it over AT-SPI2 + X11; macOS will implement it over AX + CGEvent.
 *
 * Failures are PlatformErrors (src/errors.ts): codes and facts, never advice that names
 * axpage's tools or commands.
 */
import type { Element, Flag, Rect, Snapshot, SnapshotLimits } from '../model/element.js';
import type { NativeVocabulary } from '../model/vocabulary.js';
import type { PlatformErrorCode } from '../errors.js';
import type { RememberedField } from '../model/field-succession.js';

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

export interface AccessReport {
  ok: boolean;
  /** Why not, in one sentence (when !ok). */
  reason?: string;
  /** Which problem it is (when !ok), for the caller to advise on; backends give facts only. */
  problem?: PlatformErrorCode;
  /** What the user should do about it (when !ok): added above the backend. */
  suggestion?: string;
  /** Facts gathered on the way (bus address, display, registry pid, app count...). */
  details: Record<string, string | number | boolean>;
}

/** Raw pixels, RGB or RGBA, row-major, no padding. */
export interface RawImage {
  width: number;
  height: number;
  channels: 3 | 4;
  data: Buffer;
}

/** A region's pixels with the windows they show, read as one instant (captureStacked). */
export interface StackedCapture {
  image: RawImage;
  /** Where the image's top-left pixel is on screen (the region after clipping). */
  origin: { x: number; y: number };
  /**
   * Every window drawn on the screen, bottom to top: its outer frame (decorations too) and
   * the process whose pixels it holds, null when the window system cannot say.
   */
  windows: { pid: number | null; frame: Rect }[];
  /**
   * Where windows that opened, closed or moved since the previous stacked capture have
   * been, with whose pixels they held: what a window drew may stay on screen after it
   * went, until the window below it is repainted by its own app.
   */
  earlier: { pid: number | null; frame: Rect }[];
}

export interface Frontmost {
  pid: number;
  windowTitle: string;
  windowFrame?: Rect;
}

/** A top-level window as the window system sees it (for connecting by title). */
export interface DesktopWindow {
  /** The window system's id of the window, where it has one: the same window across listings. */
  id?: number;
  pid: number;
  title: string;
  /** The client area (the app's own pixels). */
  frame: Rect;
  /**
   * The client area with the window manager's decorations around it (title bar, borders:
   * clicks there move, maximize or close the window); absent when the manager sets none.
   */
  outer?: Rect;
  active: boolean;
}

/** Where an element's caret is and what of its text is selected (offsets in characters). */
export interface TextPlace {
  caret: number;
  /** The selected range [start, end), if any. */
  selection?: [number, number];
}

/** A window on screen that listWindows does not list, and whose it is. */
export interface UnlistedWindow {
  id?: number;
  /** Its process; null when the window system cannot say (a remote client). */
  pid: number | null;
  /** Where it is on the screen. */
  frame: Rect;
}

/**
 * A window of one process drawn inside another's window (an XEmbed plug): what it shows is
 * that process's, however the window around it is listed. Its frame is inside its host's
 * client area.
 */
export interface EmbeddedWindow extends UnlistedWindow {
  /** The listed window it is drawn in (DesktopWindow.id). */
  host: number;
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
 * Where the secure (password) fields are right now, for redacting a capture: read fresh
 * from every app with a window on the region, never from a cached walk.
 */
export interface SecureFieldScan {
  /**
   * Apps read fresh, each with the on-screen frames of its secure fields (maybe none) and,
   * where the backend knows them, those fields (ids, and what identifies them otherwise as
   * far as the lookup read it): its password fields, the remembered fields it located
   * (their frames now), and fields it found built anew in a remembered field's place.
   */
  fresh: Array<{ pid: number; frames: Rect[]; fields?: RememberedField[] }>;
  /**
   * Apps with a window on the region whose fields could not be read fresh, why, and the
   * frames of their windows (the caller fills them whole: nothing says where the fields are;
   * without `windows`, nothing says where the app is either: the caller fills the region).
   */
  failed: Array<{ pid: number; reason: string; windows?: Rect[] }>;
  /**
   * Windows on the region that no accessible app stands behind and that say they ask for a
   * secret (a password prompt, by their title or class): filled whole.
   */
  prompts?: Array<{ pid: number | null; frame: Rect }>;
  /**
   * The other windows on the region that no accessible app stands behind (its process is
   * not on the accessibility bus, or no process is known for it), not prompts: nothing can
   * say where its password fields are. The caller fills them whole where it must fail
   * closed (safe mode).
   */
  inaccessible?: Array<{ pid: number | null; frame: Rect }>;
}

export type MouseButton = 'left' | 'right' | 'middle';

export interface KeyCombo {
  /** A key name ("Return", "Tab", "F5", "a", "A", "space"); see the backend's key table. */
  key: string;
  modifiers: Array<'ctrl' | 'shift' | 'alt' | 'super' | 'cmd' | 'opt'>;
}

/**
 * What a key does by itself in the toolkits of a platform: moves the keyboard focus (Tab,
 * Shift+Tab), moves the caret, selection or view (arrows, Home, Page_Down), cancels
 * (Escape), or activates (Return: a dialog's default button, a focused button or check
 * box). `pointer`: it moves or clicks the pointer, or turns on the keys that do (X's mouse
 * keys), so it clicks wherever the pointer is. `other` is every other key: it may type a
 * character, delete, paste or run a shortcut.
 */
export type KeyKind = 'focus' | 'caret' | 'cancel' | 'activate' | 'pointer' | 'other';

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

/** What to start: a program with its arguments, or an installed app by the name users know. */
export type LaunchRequest = { command: string[] } | { app: string };

/** A launch resolved before anything runs, so that what it names can be checked first. */
export interface LaunchPlan {
  /** The program and its arguments, as they will run (no shell). */
  argv: string[];
  /** What it is called: an installed app's id and display name, and the program's file name. */
  names: string[];
  /** Where an installed app was found (its desktop file on Linux). */
  source?: string;
  /** Working directory the app asks for. */
  cwd?: string;
  /** The real file of the program that is spawned (every symlink followed). */
  executable: string;
  /** The real files of every program the launch runs (the program, interpreters, what a launcher runs). */
  executables: string[];
  /**
   * Every name of every program the launch runs: each symlink hop and real file of the
   * program, of a script's interpreter, of the command a launcher like `env` runs.
   */
  programs: string[];
  /** A launcher in the chain that runs a command the server cannot follow (xargs, sh -c). */
  wrapper?: string;
}

export interface LaunchedProcess {
  pid: number;
  /** Settles when the process exits: its exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: string | null }>;
}

/** Languages a platform may run natively against its accessibility API. */
export type ScriptLanguage = 'applescript' | 'jxa';

/**
 * Whether the platform has a native accessibility scripting facility (macOS: AppleScript
 * and JXA through System Events), and which languages it runs.
 */
export interface ScriptingSupport {
  languages: readonly ScriptLanguage[];
  /** Why there is none (when `languages` is empty): a fact about the platform. */
  reason?: string;
}

/**
 * What a backend tells the layers above it about its platform: facts, no behaviour. Known
 * before anything is opened (src/platform/index.ts gives the server the running
 * platform's before its first call); `Desktop.traits` is the same object.
 */
export interface PlatformTraits {
  /** What its native role and action names mean (model/vocabulary.ts). */
  vocabulary: NativeVocabulary;
  /** Pixels one wheel step scrolls in the platform's toolkits: a scroll by pixels is sent as steps. */
  wheelStepPx: number;
  /**
   * How long an action's first sign of change may take to come, by delivery: an
   * accessibility action (background) is answered by the app, real input (foreground)
   * takes the input route first.
   */
  firstEventMs: { background: number; foreground: number };
}

export interface Desktop {
  readonly platform: string;
  /** The platform's names and ways (see PlatformTraits). */
  readonly traits: PlatformTraits;
  /** Native accessibility scripting; absent means the platform has none. */
  readonly scripting?: ScriptingSupport;
  /** Runs a script in one of `scripting.languages`; resolves to what it printed. */
  runScript?(language: ScriptLanguage, script: string): Promise<string>;

  /** Is the accessibility stack reachable, and if not, why and what to do. */
  checkAccess(): Promise<AccessReport>;
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
  /** The process owning the active window, or null when nothing is active. */
  frontmost(): Promise<Frontmost | null>;
  /** Top-level windows of all apps (or one app), front to back where known. */
  listWindows(pid?: number): Promise<DesktopWindow[]>;
  /**
   * The windows other processes draw inside these listed windows (at any depth), each
   * clipped to its host. Absent: the window system lets no process draw inside another's
   * windows, or the backend cannot tell (then nothing is embedded as far as it knows).
   */
  embeddedWindows?(hosts: readonly DesktopWindow[]): Promise<EmbeddedWindow[]>;
  /**
   * The pid of the process whose text a selection offers now (it answers every paste);
   * null when none owns it or it cannot be told. Absent: the platform cannot say.
   */
  selectionOwner?(selection: 'clipboard' | 'primary'): Promise<number | null>;
  /**
   * The windows no window manager manages (menus, popups, tooltips, lock and prompt
   * windows), drawn above the listed ones, front to back. Absent: every window is listed.
   */
  popupWindows?(): Promise<UnlistedWindow[]>;
  /** Pids of live processes started by `pid` (children and their descendants). */
  childProcesses(pid: number): Promise<number[]>;
  /**
   * Pids of live processes a launch started, `leader` being the process `launch` spawned
   * (it leads a session of its own): its descendants, and what stays in its session or
   * process group after its parent exited (a program a launcher backgrounds). Not the
   * leader itself. Absent: the platform knows only childProcesses.
   */
  launchFamily?(leader: number): Promise<number[]>;
  /** Walk one app, bounded by the limits, windows ordered dialogs first. */
  snapshot(pid: number, options: SnapshotOptions): Promise<Snapshot>;

  screenSize(): Promise<{ w: number; h: number }>;
  /**
   * Pixels of a screen region (clipped to the screen), or the whole screen, in a buffer
   * of the caller's own: nothing else writes it after (the pipeline keeps it unchanged).
   */
  capture(rect?: Rect): Promise<RawImage>;
  /**
   * As capture, with the windows the pixels show, read in the same instant: no window
   * opens, closes or moves between the two (a window that flashes for a few milliseconds
   * is in both or in neither). Slower than capture. Absent: the platform cannot hold the
   * screen still.
   */
  captureStacked?(rect?: Rect): Promise<StackedCapture>;
  /**
   * The secure fields of every app with a window intersecting `region`, located now
   * (bounded by `timeoutMs`): an app that does not answer in time is listed as failed.
   * Apps in `skip` are not read: the caller has their fields from a walk it just made.
   * `remembered`: per pid, elements known to hold a secret whatever their role now (a
   * password field its app revealed as plain text): located along with the app's fields,
   * by id; one whose id is gone is looked for where it was (its app may have built it anew:
   * see model/field-succession.ts), and what takes text there is filled.
   */
  secureFieldFrames(
    region: Rect,
    timeoutMs: number,
    skip?: readonly number[],
    remembered?: ReadonlyMap<number, readonly RememberedField[]>,
  ): Promise<SecureFieldScan>;

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

  // Input events (foreground): the target must be in front.
  /**
   * The input device a client other than the app `pid` holds grabbed now, if any (a
   * password prompt grabs the keyboard): while it does, every key or click sent goes to
   * that client, whatever window is in front. Asked before input is sent to `pid`.
   */
  grabbedInput(pid: number): Promise<'keyboard' | 'pointer' | undefined>;
  /**
   * The input device any client holds grabbed now, the app's own popup or not (the window
   * system cannot say whose grab it is: grabbedInput excuses one while the app's menu is on
   * top). Absent: the platform has no grabs.
   */
  anyGrab?(): Promise<'keyboard' | 'pointer' | undefined>;
  /**
   * The pid's parent, grandparent and so on up to init, and the leader of its session (a
   * helper forked into the background keeps that); absent: not known here.
   */
  ancestors?(pid: number): Promise<number[]>;
  /** Bring the app's window to the front; resolves to a function restoring the previous one. */
  activate(pid: number): Promise<() => Promise<void>>;
  /** The name results give the route of the real pointer and keyboard input below (X11: `xtest`). */
  readonly inputRoute: string;
  click(x: number, y: number, button: MouseButton, count: number): Promise<void>;
  pressKey(combo: KeyCombo): Promise<void>;
  /** Whether pressKey can press this key name: checked before any input is sent. */
  knowsKey(key: string): boolean;
  /** What the key does by itself (without modifiers); `other` for unknown names. */
  keyKind(key: string): KeyKind;
  typeText(text: string): Promise<void>;
  /** Scroll wheel at a point: positive dy scrolls content down (reveals what is below). */
  scroll(x: number, y: number, dx: number, dy: number): Promise<void>;
  drag(
    from: { x: number; y: number },
    to: { x: number; y: number },
    durationMs: number,
  ): Promise<void>;

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

  // Starting and ending apps.
  /** Resolve what a launch would run; a name that matches no installed app is an error. */
  planLaunch(request: LaunchRequest): Promise<LaunchPlan>;
  /**
   * Start the plan detached from us (its own session, no terminal, no stdin), with the
   * environment apps need to be accessible; its output goes to `outputFd`.
   */
  launch(plan: LaunchPlan, outputFd: number): Promise<LaunchedProcess>;
  /**
   * Ask every top-level window of the process to close, as its close button would (the
   * app may ask to save first); resolves to how many were asked.
   */
  closeWindows(pid: number): Promise<number>;
  /** Whether the process still runs (exited or zombie: false). */
  isRunning(pid: number): Promise<boolean>;
  /**
   * Ask the process to end now (SIGTERM on POSIX); never by name. `kill`: end it without
   * asking (SIGKILL), for a process that did not go when asked.
   */
  terminate(pid: number, kill?: boolean): Promise<void>;

  close(): Promise<void>;
}

/**
 * The desktop's text clipboard (X11: the CLIPBOARD selection). Apart from Desktop: it
 * needs no accessibility bus, and a backend may keep a process alive to own it.
 */
export interface Clipboard {
  /**
   * The clipboard's text; '' when nothing offers text. `primary`: what the current selection
   * offers instead (X11's PRIMARY: a middle click pastes it); '' on a platform with none.
   */
  read(selection?: 'clipboard' | 'primary'): Promise<string>;
  /** Puts `text` on the clipboard; resolves once others can read it. */
  write(text: string): Promise<void>;
  /** Stops whatever the backend keeps alive to own the clipboard (the text goes with it). */
  close(): Promise<void>;
}

/**
 * Where the memory of fields once seen as password fields outlives a server (see
 * pipeline/secret-fields.ts): shared by every server on the same desktop, whatever their
 * environment, and dropping the ids of processes that are gone. A method that cannot do
 * its work throws: it never reports success for what it did not keep.
 */
export interface SecretFieldStore {
  /**
   * The fields remembered per live pid (ids, and what identifies them otherwise; never
   * text), or null when nothing changed since the last load.
   */
  loadIfChanged(): ReadonlyMap<number, readonly RememberedField[]> | null;
  /** Adds these fields to what the store holds, merged with what others saved. */
  save(byPid: ReadonlyMap<number, Iterable<RememberedField>>): void;
}
