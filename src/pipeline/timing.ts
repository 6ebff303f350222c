/**
 * Where one call's time after the walk goes, stage by stage: the bench prints it beside the
 * round trip. Stages that overlap (the screenshot runs while the tree file is rendered)
 * each keep their own wall time, so their sum can exceed the call's. `before_walk` and
 * `after_walk` are the call's own wall time on either side of its walk.
 */
export const STAGES = [
  'resolve',
  'before_walk',
  'walk',
  'after_walk',
  'filter',
  'present',
  'diff',
  'capture',
  'redact_scan',
  'encode',
  'write_png',
  'allocate',
  'await_png',
  'serialize',
  'write_txt',
  'summary',
] as const;

export type Stage = (typeof STAGES)[number];

export class StageTimes {
  private readonly ms = new Map<Stage, number>();

  /** Adds the time `fn` takes to `stage` (a stage run twice counts both). */
  time<T>(stage: Stage, fn: () => T): T {
    const t0 = performance.now();
    try {
      return fn();
    } finally {
      this.add(stage, performance.now() - t0);
    }
  }

  async timeAsync<T>(stage: Stage, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      this.add(stage, performance.now() - t0);
    }
  }

  add(stage: Stage, ms: number): void {
    this.ms.set(stage, (this.ms.get(stage) ?? 0) + ms);
  }

  get(stage: Stage): number | undefined {
    return this.ms.get(stage);
  }

  toJSON(): Partial<Record<Stage, number>> {
    return Object.fromEntries(this.ms) as Partial<Record<Stage, number>>;
  }
}
