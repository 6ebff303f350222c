/**
 * Reads a summary back into fields: `key: value` lines, with the indented lines under a
 * bare list key (matches, windows, attributes, failures, state_changes, text_changes,
 * visible_elements, app_switch_visible_elements) as its items. `visible_elements` is a
 * field, not a list, when it is one line (`34 unchanged since <file>`, `34 in file`).
 * The demo prints with it, the tests and the benchmark assert and measure with it.
 */
export interface ParsedSummary {
  fields: Record<string, string>;
  lists: Record<string, string[]>;
  /** Keys in the order they appeared. */
  order: string[];
}

export function parseSummary(text: string): ParsedSummary {
  const fields: Record<string, string> = {};
  const lists: Record<string, string[]> = {};
  const order: string[] = [];
  let listKey: string | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('  ') && listKey) {
      lists[listKey].push(line.slice(2));
      continue;
    }
    const m = /^([a-z_]+):(?: (.*))?$/.exec(line);
    if (!m) continue;
    const [, key, value] = m;
    order.push(key);
    fields[key] = value ?? '';
    // Only a bare `key:` opens a list: `app: ` is a field whose value is empty.
    if (value === undefined) {
      listKey = key;
      lists[key] = [];
    } else {
      listKey = undefined;
    }
  }
  return { fields, lists, order };
}
