/** The one verdict path: foreground advised only when nothing at all was seen. */
import { describe, expect, it } from 'vitest';
import { conclusive, judge } from '../../src/actions/index.js';

describe('judge', () => {
  it('confirms what reads back, whatever else happened', () => {
    expect(judge({ changed: false, reading: 'landed', delivery: 'background' })).toEqual({
      effect: 'confirmed',
    });
  });

  it('a password that cannot be read back is unverifiable, with no advice to type it again', () => {
    const v = judge({ changed: false, reading: 'unreadable', delivery: 'background' });
    expect(v).toEqual({ effect: 'unverifiable' });
  });

  it('never advises foreground when something changed, though the value did not read back', () => {
    expect(judge({ changed: true, reading: 'absent', delivery: 'background' })).toEqual({
      effect: 'unverifiable',
    });
    expect(
      judge({ changed: false, touched: true, reading: 'absent', delivery: 'background' }),
    ).toEqual({ effect: 'unverifiable' });
  });

  it('a change in the tree or in the target itself confirms an action without a read-back', () => {
    expect(judge({ changed: true, delivery: 'background' }).effect).toBe('confirmed');
    expect(judge({ changed: false, touched: true, delivery: 'background' }).effect).toBe(
      'confirmed',
    );
  });

  it('nothing seen after a background action: suspected no-op, foreground advised', () => {
    const v = judge({ changed: false, touched: false, delivery: 'background' });
    expect(v.effect).toBe('suspected_noop');
    expect(v.escalation?.recommended).toBe('foreground');
  });

  it('nothing seen after foreground input, or when a repeat would harm: no advice', () => {
    expect(judge({ changed: false, delivery: 'foreground' })).toEqual({
      effect: 'suspected_noop',
    });
    expect(judge({ changed: false, delivery: 'background', escalate: false })).toEqual({
      effect: 'suspected_noop',
    });
  });

  it('asks for more waiting only while nothing conclusive was seen', () => {
    expect(conclusive({ changed: true, delivery: 'background' })).toBe(true);
    expect(conclusive({ changed: true, reading: 'absent', delivery: 'background' })).toBe(false);
    expect(conclusive({ changed: false, delivery: 'background' })).toBe(false);
    expect(conclusive({ changed: false, reading: 'unreadable', delivery: 'background' })).toBe(
      true,
    );
  });
});
