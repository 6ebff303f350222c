/**
 * The error every test desktop throws (the X11 one in headless.ts, the sway one in
 * sway.ts), and the message that names missing programs with the script that installs them.
 */
import { fileURLToPath } from 'node:url';

/** Path of the script that installs the system packages, for error messages. */
export const INSTALL_SCRIPT = fileURLToPath(
  new URL('../../scripts/install-system-deps.sh', import.meta.url),
);

export type DesktopErrorCode = 'missing-binary' | 'display-busy' | 'start-failed' | 'not-up';

export class DesktopError extends Error {
  override name = 'DesktopError';
  constructor(
    message: string,
    readonly code: DesktopErrorCode,
  ) {
    super(message);
  }
}

/** The error for programs not found, each named with its package. */
export function missingPrograms(missing: string[]): DesktopError {
  return new DesktopError(
    `missing: ${missing.join(', ')}. Install the system packages with: bash ${INSTALL_SCRIPT}`,
    'missing-binary',
  );
}
