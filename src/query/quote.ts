/**
 * Writing queries back out: the text of a query that the parser reads as meant, for
 * errors that suggest a call (`query: "AXButton:'Save as:'"`).
 */
import type { Element } from '../model/element.js';
import { collapse } from './text.js';

/**
 * `text` as a quoted query value: `'Save as:'`, or `"Don't save"` when the text has a
 * single quote, escaping (`\"`, `\\`) only when it has both. Single quotes first
 * because the query itself travels in a JSON string, where every `"` costs a backslash.
 */
export function quoteText(text: string): string {
  if (!text.includes("'") && !text.includes('\\')) return `'${text}'`;
  if (!text.includes('"') && !text.includes('\\')) return `"${text}"`;
  return `"${text.replace(/[\\"]/g, '\\$&')}"`;
}

/**
 * A query for an element by its exact AX role and its name (else its identifier, else
 * its description): `AXButton:'Save'`, `role:AXTextField identifier:'email'`. Undefined
 * when the element has none of those texts. Values are never used: they change, and may
 * be secret.
 */
export function exactQueryFor(
  el: Pick<Element, 'role' | 'name' | 'identifier' | 'description'>,
): string | undefined {
  const role = el.role.trim();
  if (role === '' || /[\s:~=>"'[\]]/.test(role)) return undefined;
  const name = collapse(el.name ?? '');
  if (name !== '') return `${role}:${quoteText(name)}`;
  const id = collapse(el.identifier ?? '');
  if (id !== '') return `role:${role} identifier:${quoteText(id)}`;
  const desc = collapse(el.description ?? '');
  if (desc !== '') return `role:${role} description:${quoteText(desc)}`;
  return undefined;
}

/** The query with its last step narrowed to the nth match (auto strategy only). */
export function withNth(query: string, n: number): string {
  const t = query.trim();
  return t.startsWith('/') ? `${t}[${n}]` : `${t} nth:${n}`;
}
