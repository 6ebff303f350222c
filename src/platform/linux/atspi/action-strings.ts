/**
 * Action strings read one call per string (`GetName(i)`, and with details
 * `GetDescription(i)`, `GetKeyBinding(i)`), for the bridges whose `Action.GetActions` cannot
 * be used: Gecko's kills the browser (its strings share one buffer, see gecko.ts) and
 * Chromium's carries empty names (see chromium.ts). One reader serves both.
 */
import { ATSPI, type ObjectRef } from './bus.js';
import type { CallFn } from './read.js';

const ACTION = ATSPI + 'Action';
const PROPS = 'org.freedesktop.DBus.Properties';

/** One action as `Action.GetActions` would give it. */
export interface ActionInfo {
  name: string;
  description: string;
  keys: string;
}

/**
 * The element's actions by index: `count` of them when the caller knows it (Chromium's
 * GetActions said how many), else as many as `NActions` says.
 */
export async function actionsByIndex(
  call: CallFn,
  [dest, path]: ObjectRef,
  details: boolean,
  count?: number,
): Promise<ActionInfo[]> {
  let n = count;
  if (n === undefined) {
    const [reply] = await call(dest, path, PROPS, 'Get', 'ss', [ACTION, 'NActions']);
    n = Number((reply as { value: unknown }).value) || 0;
  }
  const one = (member: string, i: number): Promise<string> =>
    call(dest, path, ACTION, member, 'i', [i]).then(([s]) => String(s ?? ''));
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const [name, description, keys] = await Promise.all([
        one('GetName', i),
        details ? one('GetDescription', i) : '',
        details ? one('GetKeyBinding', i) : '',
      ]);
      return { name, description, keys };
    }),
  );
}

/** Only the names, read by index. */
export async function actionNamesByIndex(
  call: CallFn,
  ref: ObjectRef,
  count?: number,
): Promise<string[]> {
  return (await actionsByIndex(call, ref, false, count)).map((a) => a.name);
}
