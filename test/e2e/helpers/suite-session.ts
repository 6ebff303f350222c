/**
 * One headless desktop and server for a describe block: started before its first test,
 * closed after its last. The tests get it through the returned getter.
 */
import { afterAll, beforeAll } from 'vitest';
import { Session, type SessionOptions } from '../../../src/harness/session.js';

export function sessionPerSuite(opts: SessionOptions = {}): () => Session {
  let session: Session | undefined;
  beforeAll(async () => {
    session = await Session.start(opts);
  }, 60_000);
  afterAll(async () => {
    await session?.close();
  });
  return () => session!;
}
