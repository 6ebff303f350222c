import { describe, expect, it } from 'vitest';
import { callNotifier, noteWalk, quietCall } from '../../src/pipeline/notify.js';

function sinks(withProgress = true) {
  const logs: Array<[string, string]> = [];
  const progress: Array<[number, number | undefined, string]> = [];
  return {
    logs,
    progress,
    sinks: {
      log: async (level: string, data: string) => void logs.push([level, data]),
      progress: withProgress
        ? async (p: number, total: number | undefined, message: string) =>
            void progress.push([p, total, message])
        : undefined,
    },
  };
}

describe('callNotifier', () => {
  it('logs one message once per call', () => {
    const s = sinks();
    const n = callNotifier(s.sinks);
    n.log('warning', 'cut');
    n.log('warning', 'cut');
    n.log('info', 'other');
    expect(s.logs).toEqual([
      ['warning', 'cut'],
      ['info', 'other'],
    ]);
  });

  it('sends progress that always increases, capped at its total', () => {
    let t = 1000;
    const s = sinks();
    const n = callNotifier(s.sinks, () => t);
    n.progress('started');
    n.progress('walked');
    t = 1400;
    n.progress('waiting', 300);
    expect(s.progress.map(([p]) => p)).toEqual([0, 1, 300]);
    expect(s.progress[2][1]).toBe(300);
    t = 1500;
    n.progress('waiting again', 300);
    expect(s.progress).toHaveLength(3); // at the total already: nothing higher to say
  });

  it('sends a repeated message at most every 250 ms', () => {
    let t = 0;
    const s = sinks();
    const n = callNotifier(s.sinks, () => t);
    for (t = 0; t < 1000; t += 20) n.progress('waiting', 5000);
    expect(s.progress.length).toBeGreaterThanOrEqual(4);
    expect(s.progress.length).toBeLessThanOrEqual(5);
  });

  it('sends no progress without a progressToken', () => {
    const s = sinks(false);
    callNotifier(s.sinks).progress('started');
    expect(s.progress).toEqual([]);
  });
});

describe('noteWalk', () => {
  const walk = { app: 'form.py', pid: 7, elements: [], elapsedMs: 10 };

  it('warns about a truncated walk to the call it is given; a quiet call takes it silently', () => {
    const s = sinks();
    noteWalk({ ...walk, truncated: 'max elements 6' }, callNotifier(s.sinks));
    expect(s.logs).toEqual([
      ['warning', 'the walk of form.py (pid 7) was cut short: max elements 6'],
    ]);
    expect(s.progress.map(([, , m]) => m)).toEqual(['walked form.py (pid 7): 0 elements']);
    expect(() => noteWalk({ ...walk, truncated: 'x' }, quietCall('ax_find').notify)).not.toThrow();
  });

  it('warns about a slow walk, and not about a quick whole one', () => {
    const s = sinks();
    const n = callNotifier(s.sinks);
    noteWalk({ ...walk, truncated: null }, n);
    noteWalk({ ...walk, truncated: null, elapsedMs: 2500 }, n);
    expect(s.logs.map(([level, m]) => `${level} ${m}`)).toEqual([
      'warning form.py (pid 7) is slow: walking its 0 elements took 2500 ms',
    ]);
  });
});
