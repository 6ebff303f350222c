/**
 * The parsed form of an element query: plain data, built by parseQuery and read by
 * findMatches and describeQuery. Nothing here touches a snapshot.
 */

/** How the caller asks the text to be read (the `strategy` argument of ax_find & co). */
export type Strategy = 'auto' | 'exact' | 'contains' | 'regex' | 'role' | 'identifier' | 'xpath';

export const STRATEGIES: readonly Strategy[] = [
  'auto',
  'exact',
  'contains',
  'regex',
  'role',
  'identifier',
  'xpath',
];

/** Which syntactic form the text was read as. */
export type QueryForm =
  'any' | 'text' | 'role_title' | 'role' | 'terms' | 'path' | 'regex' | 'identifier' | 'xpath';

/** The element texts a text term looks at. */
export type TextField = 'name' | 'value' | 'description' | 'identifier';

export const ALL_TEXT_FIELDS: readonly TextField[] = ['name', 'value', 'description', 'identifier'];

/**
 * A text comparison. `exact` and `contains` compare case-insensitively with whitespace
 * collapsed and `…` read as `...` (a case-exact hit still ranks higher); `regex` runs
 * on the raw text.
 */
export type TextMatch =
  | { op: 'exact'; text: string }
  | { op: 'contains'; text: string }
  | { op: 'regex'; source: string; flags: string };

/**
 * A role as the user named it, resolved to the normalized AX roles and the platform's
 * native role names (lower case) it stands for. An element matches when its `role` is
 * in `roles` or its `nativeRole` is in `nativeRoles`.
 */
export interface RoleSpec {
  /** What the user wrote ("button", "push button", "AXButton"). */
  input: string;
  /** Shown by describeQuery: the AX role, or the input when it stands for several. */
  label: string;
  roles: readonly string[];
  nativeRoles: readonly string[];
}

/** Boolean keys a term can test: the model's flags plus a few derived ones. */
export type FlagKey =
  | 'visible'
  | 'hidden'
  | 'enabled'
  | 'disabled'
  | 'focused'
  | 'focusable'
  | 'selected'
  | 'checked'
  | 'mixed'
  | 'pressed'
  | 'expanded'
  | 'collapsed'
  | 'editable'
  | 'readonly'
  | 'multiline'
  | 'modal'
  | 'active'
  | 'secure'
  | 'offscreen'
  | 'interactive';

export type Term =
  /** The element has this role (alias resolved). */
  | { kind: 'role'; role: RoleSpec }
  /** The element's role or native role matches text (`role~text`, `role:/re/`). */
  | { kind: 'role_text'; match: TextMatch }
  /** One of `fields` matches; the best field decides the score. */
  | { kind: 'text'; fields: readonly TextField[]; match: TextMatch }
  | { kind: 'flag'; flag: FlagKey; value: boolean };

/**
 * One step of a query. A plain query is one step; a path has several, each matched
 * relative to the elements the previous step matched.
 */
export interface Step {
  /**
   * `descendant`: anywhere below a previous match (for the first step: anywhere).
   * `child`: a direct child of a previous match (for the first step: a top-level element).
   */
  axis: 'descendant' | 'child';
  /** All must hold (AND); none = any element. */
  terms: Term[];
  /** 1-based pick among this step's matches in tree order; negative counts from the end. */
  nth?: number;
}

/** Names of the attempts findMatches reports in `tried`. */
export type AttemptName =
  | 'any'
  | 'exact'
  | 'contains'
  | 'role'
  | 'role_title'
  | 'role_title_contains'
  | 'terms'
  | 'path'
  | 'regex'
  | 'identifier'
  | 'xpath';

/** One reading of the query; findMatches tries them in order and keeps the first that finds anything. */
export interface Attempt {
  name: AttemptName;
  steps: Step[];
}

export interface Query {
  /** The text as given. */
  source: string;
  strategy: Strategy;
  form: QueryForm;
  /** At least one. Later attempts are fallbacks (auto: contains after exact, literal text after a structured reading). */
  attempts: Attempt[];
}

/** What a match is reported as (ax_find's `strategy` output). */
export type MatchStrategy =
  | 'title_exact'
  | 'value_exact'
  | 'description_exact'
  | 'identifier'
  | 'contains'
  | 'regex'
  | 'role'
  | 'role_title'
  | 'role_title_contains'
  | 'terms'
  | 'path'
  | 'xpath'
  | 'any';

/** The short form of the valid syntax, appended to every QueryError. */
export const QUERY_FORMS_HELP =
  'Valid forms: Save | button:Save | push button:"Save As" | role:button title~save enabled:true | ' +
  'title:/^Save( As)?$/i | window:"Main" > button:OK | AXButton[2] | index:2 | ' +
  "//AXButton[@title='Save'] (strategy xpath) | * (any element)";

/** A malformed query. The message says what is wrong, then the valid forms. */
export class QueryError extends Error {
  override readonly name = 'QueryError';
  readonly query: string;
  /** Offset in the query where the problem is, when there is one place. */
  readonly position?: number;
  /** Close alternatives (role names, keys, element types), when a name was not known. */
  readonly suggestions: string[];

  constructor(
    problem: string,
    query: string,
    opts: { position?: number; suggestions?: string[]; help?: boolean } = {},
  ) {
    super(opts.help === false ? problem : `${problem}. ${QUERY_FORMS_HELP}`);
    this.query = query;
    this.position = opts.position;
    this.suggestions = opts.suggestions ?? [];
  }
}
