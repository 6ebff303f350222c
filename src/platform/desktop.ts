/**
 * The narrow interface between axpage and a desktop platform. Everything above it
 * (pipeline, tree, diff, summary, capture, tools) is platform-free. Linux implements
 * it over AT-SPI2 + X11; macOS will implement it over AX + CGEvent.
 *
 * `Desktop` is three narrower interfaces, each in a file of its own, and the few members
 * that need more than one of them: the accessibility source (accessibility.ts), the display
 * session (display-session.ts) and process control (processes.ts). The layers above import
 * all of it from here.
 *
 * Failures are PlatformErrors (src/errors.ts): codes and facts, never advice that names
 * axpage's tools or commands.
 */
import type { Rect } from '../model/element.js';
import type { NativeVocabulary } from '../model/vocabulary.js';
import type { PlatformErrorCode } from '../errors.js';
import type { RememberedField } from '../model/field-succession.js';
import type { AccessibilitySource } from './accessibility.js';
import type { DisplaySession } from './display-session.js';
import type { ProcessControl } from './processes.js';

export type {
  AccessibilitySource,
  Activity,
  AppInfo,
  AppsChange,
  Change,
  ClickRoute,
  ClickSpot,
  CommitRoute,
  PointHit,
  SnapshotOptions,
  TextPlace,
} from './accessibility.js';
export type {
  DesktopWindow,
  DisplaySession,
  EmbeddedWindow,
  Frontmost,
  GuardedOutcome,
  GuardedPointer,
  InputEvent,
  KeyCombo,
  KeyKind,
  MouseButton,
  PointerRefusal,
  RawImage,
  StackedCapture,
  UnlistedWindow,
} from './display-session.js';
export type {
  LaunchedProcess,
  LaunchOutput,
  LaunchPlan,
  LaunchRequest,
  ProcessControl,
} from './processes.js';

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

/**
 * The whole desktop as the layers above see it: its accessibility source, its display
 * session and its process control, with the members that need more than one of them. A
 * backend may build it from parts (Linux: AT-SPI beside an X11 session) or in one piece.
 */
export interface Desktop extends AccessibilitySource, DisplaySession, ProcessControl {
  readonly platform: string;
  /** The platform's names and ways (see PlatformTraits). */
  readonly traits: PlatformTraits;
  /** Native accessibility scripting; absent means the platform has none. */
  readonly scripting?: ScriptingSupport;
  /** Runs a script in one of `scripting.languages`; resolves to what it printed. */
  runScript?(language: ScriptLanguage, script: string): Promise<string>;

  /**
   * Is the accessibility stack reachable, and if not, why and what to do; with facts of
   * the display session (which display, which window manager) when it can be reached.
   */
  checkAccess(): Promise<AccessReport>;
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
  /**
   * The input device a client other than the app `pid` holds grabbed now, if any (a
   * password prompt grabs the keyboard): while it does, every key or click sent goes to
   * that client, whatever window is in front. Asked before input is sent to `pid`. Needs
   * the window system (who grabbed) and the app's tree (whether its own open menu holds it).
   */
  grabbedInput(pid: number): Promise<'keyboard' | 'pointer' | undefined>;

  /** Closes every part: the accessibility connection, the display session. */
  close(): Promise<void>;
}

/**
 * The desktop's text clipboard (X11: the CLIPBOARD selection). Apart from Desktop: it
 * needs no accessibility bus, and a backend may keep a process alive to own it.
 */
/** What a selection offered, kept to be offered again (Clipboard.hold). */
export interface HeldSelection {
  /** Each format it offered (a MIME type or the platform's name for one) and its bytes. */
  formats: Array<{ type: string; data: Buffer }>;
  /** Formats it offered that were too big to keep. */
  tooBig: string[];
}

export interface Clipboard {
  /**
   * The clipboard's text; '' when nothing offers text. `primary`: what the current selection
   * offers instead (X11's PRIMARY: a middle click pastes it); '' on a platform with none.
   */
  read(selection?: 'clipboard' | 'primary'): Promise<string>;
  /**
   * Puts `text` on the clipboard (or on the primary selection); resolves once others can
   * read it.
   */
  write(text: string, selection?: 'clipboard' | 'primary'): Promise<void>;
  /**
   * Whether what this client last wrote to the selection is still what it offers (no one
   * copied since). Absent: the platform cannot tell.
   */
  owns?(selection?: 'clipboard' | 'primary'): boolean;
  /** Stops offering what this client wrote to the selection: it then holds nothing. */
  release?(selection: 'clipboard' | 'primary'): Promise<void>;
  /**
   * Everything the selection offers now, format by format (text, an image, a list of
   * files), up to `maxBytes` in all; the formats left out for their size are named.
   */
  hold?(selection: 'clipboard' | 'primary', maxBytes: number): Promise<HeldSelection>;
  /** Offers what hold() took again, every format of it, as this client's (owns() then). */
  offer?(held: HeldSelection, selection: 'clipboard' | 'primary'): Promise<void>;
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
