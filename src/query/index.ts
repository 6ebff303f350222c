/**
 * Element queries, shared by every tool that takes `query` (ax_find, ax_click, ax_type,
 * ax_assert, ax_get_value, …). Pure: text in, Query out; snapshot + Query in, ranked
 * indices out. No I/O.
 *
 * Refs (`e42`) are not queries: callers resolve refs first. parseQuery rejects nothing
 * for looking like a ref; it would read `e42` as plain text.
 *
 * ## Grammar (strategy auto)
 *
 *   Save                       plain text: name, value, description or identifier.
 *                              Tries exact (case-insensitive, a case-exact hit ranks
 *                              first), then contains, then the text as a role name
 *                              (an `AX…` word is tried as a role first).
 *   "Save As"                  quoted: the same, for text with spaces or `:`/`>`/`[`.
 *   button:Save                role:title. Roles: AX names with or without `AX`
 *   AXButton:Save              (case-insensitive), aliases (textfield, text field,
 *   push button:Save           checkbox, dropdown …), native names (push button).
 *                              Family words (button, checkbox, textfield, dropdown,
 *                              menuitem, window, dialog; see ROLE_FAMILIES) name every
 *                              role of their kind; `AXButton` names AXButton alone.
 *   button~Save                Title exact (`:`) or contains (`~`); auto falls back
 *   button:                    to contains when exact finds nothing. `role:` alone =
 *                              every element of that role.
 *   role:button title:"Save As" value~draft description:… identifier:… enabled:true
 *                              key/value terms, all must hold. `:` or `=` exact
 *                              (case-insensitive), `~` contains, `/re/flags` a regex
 *                              (`title:/^Save( As)?$/i`). An unquoted value runs on to
 *                              the next key (`role:push button title:Save As`).
 *                              Keys: role, title|name, value, description|desc,
 *                              identifier|id, index|nth, and flags (visible, hidden,
 *                              enabled, disabled, focused, checked, selected, expanded,
 *                              editable, interactive, … = true|false).
 *   /^Save/i                   a regex on name, value, description, identifier.
 *   window:"Main" > button:OK  a path. `>` (or `>>`) = anywhere inside the previous
 *                              step's matches. `>` is not "direct child" because
 *                              toolkits put filler/panel levels between a window and
 *                              its controls; for direct children use the xpath form.
 *   AXButton[2]   OK[-1]       `[n]`: the nth (1-based; negative from the end) of a
 *   role:button index:2        step's matches in tree order, i.e. the order of the
 *   M nth:2                    tree file, after scope and filters. `index:n`/`nth:n`
 *                              is the same for the last step, after any query.
 *   //AXButton[@title='Save']  xpath subset (see xpath.ts): `//` anywhere, `/` child.
 *   *                          any element (with scope/filters: the explorer). Only a
 *                              whole step is a wildcard (`*`, `> *`, `//*`); inside text
 *                              or a value (`Save*`, `button:*`) `*` is a literal character.
 *
 * Quotes (`"…"` or `'…'`, opening at the start of a token) keep spaces, `:`, `>`, `[`
 * and `*` as text; a backslash escapes the quote or itself (`"say \"hi\""`).
 * quoteText writes a value so; exactQueryFor writes `AXButton:"Save as:"`.
 *
 * A structured reading that finds nothing falls back to the whole text as literal
 * plain text (`Label: hello` may be a label), unless the query used quotes or a regex.
 * Strategies other than auto read the whole text one way: exact, contains, regex (the
 * text is the regex, `/re/flags` or bare), role (a role name), identifier, xpath.
 */
export { parseQuery } from './parse.js';
export { findMatches, tiedWithBest } from './find.js';
export type { FindFilter, FindOptions, FindResult, FindScope, Match } from './find.js';
export { suggestNames } from './suggest.js';
export { exactQueryFor, quoteText, withNth } from './quote.js';
export { describeQuery } from './describe.js';
export {
  elementTypeRoles,
  resolveElementTypes,
  resolveRole,
  roleMatches,
  ROLE_FAMILIES,
  roleNames,
  suggestRoles,
} from './roles.js';
export { QueryError, QUERY_FORMS_HELP, STRATEGIES } from './types.js';
export type { RoleFamily } from './roles.js';
export type {
  Attempt,
  AttemptName,
  FlagKey,
  MatchStrategy,
  Query,
  QueryForm,
  RoleSpec,
  Step,
  Strategy,
  Term,
  TextField,
  TextMatch,
} from './types.js';
