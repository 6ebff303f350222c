import { describe, expect, it } from 'vitest';
import { found, inCI, missingReason, program } from '../e2e/helpers/needs.js';

describe('what a test needs from the machine', () => {
  it('reads CI the way CI services set it', () => {
    expect(inCI({ CI: 'true' })).toBe(true);
    expect(inCI({ CI: '1' })).toBe(true);
    expect(inCI({ CI: 'false' })).toBe(false);
    expect(inCI({ CI: '0' })).toBe(false);
    expect(inCI({ CI: '' })).toBe(false);
    expect(inCI({})).toBe(false);
  });

  it('names every missing need and how it gets installed, and nothing when all are there', () => {
    const here = found('python3', 'python3', true);
    const gone = found('gtk4-demo', 'gtk-4-examples', false);
    expect(missingReason([here])).toBeNull();
    expect(missingReason([here, gone, found('qt6ct', 'qt6ct', false)])).toBe(
      'gtk4-demo is missing (the Debian package gtk-4-examples, which scripts/install-system-deps.sh installs); ' +
        'qt6ct is missing (the Debian package qt6ct, which scripts/install-system-deps.sh installs)',
    );
  });

  it('finds a program on PATH only where an executable file is', () => {
    expect(program('node', 'nodejs').present).toBe(true);
    expect(program('no-such-program-axpage', 'none').present).toBe(false);
  });
});
