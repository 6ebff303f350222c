/** Errors of the artifact store, with a message that says what to do. */
export type ArtifactErrorCode = 'config' | 'unsafe_dir' | 'bad_name' | 'io';

export class ArtifactError extends Error {
  override name = 'ArtifactError';
  constructor(
    readonly code: ArtifactErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
