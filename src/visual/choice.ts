/**
 * A model's answer to "which number?": the first whole number in its text, when it is
 * one of the marks; `none` when it says so (0, or "none").
 */
export type Choice =
  { kind: 'mark'; n: number } | { kind: 'none' } | { kind: 'garbage'; reason: string };

export function parseChoice(answer: string, count: number): Choice {
  const text = answer.trim();
  if (text === '') return { kind: 'garbage', reason: 'the answer was empty' };
  const m = /(?<![\d.])(\d{1,6})(?!\d|\.\d)/.exec(text);
  if (!m) {
    return /\bnone\b|\bno match\b|\bnot (?:found|visible|there)\b/i.test(text)
      ? { kind: 'none' }
      : { kind: 'garbage', reason: 'the answer named no number' };
  }
  const n = Number(m[1]);
  if (n === 0) return { kind: 'none' };
  if (n > count)
    return { kind: 'garbage', reason: `the answer named ${n}, but there are ${count} marks` };
  return { kind: 'mark', n };
}
