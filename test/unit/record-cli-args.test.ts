/** `axpage record`'s arguments: defaults, and a clear error for what it cannot take. */
import { describe, expect, it } from 'vitest';
import { parseRecordArgs, RecordArgsError } from '../../src/cli/record.js';
import { DEFAULT_LIMIT_S } from '../../src/record/recorder.js';

describe('parseRecordArgs', () => {
  it('defaults to the frontmost app, stdout and the default limit', () => {
    expect(parseRecordArgs([])).toEqual({ limitS: DEFAULT_LIMIT_S });
    expect(
      parseRecordArgs(['--app', 'mousepad', '--out', 'r.json', '--limit-seconds', '30']),
    ).toEqual({
      app: 'mousepad',
      out: 'r.json',
      limitS: 30,
    });
    expect(parseRecordArgs(['--help'])).toEqual({ help: true });
  });

  it.each([
    [['--limit-seconds', '0'], /1 to/],
    [['--limit-seconds', 'ten'], /not 'ten'/],
    [['--limit-seconds=-5'], /1 to/],
    [['--app', ' '], /--app needs/],
    [['--nope'], /nope/],
    [['stray'], /stray/],
  ])('%j is an error that says why', (args, why) => {
    expect(() => parseRecordArgs(args)).toThrow(RecordArgsError);
    expect(() => parseRecordArgs(args)).toThrow(why);
  });
});
