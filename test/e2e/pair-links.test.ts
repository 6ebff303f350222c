/**
 * A link planted in the artifact dir under a pair's name is never read back: not by the
 * pair resource, not into the artifact index, not as an input of ax_visual_diff. Each
 * would otherwise hand the client a file from outside the dir.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';

const OUTSIDE = 'OUTSIDE-SECRET-CONTENT';
const SYMLINKED = '1795820000000_get_tree';
const HARDLINKED = '1795820000001_get_tree';

let session: Session;
let outsideDir: string;

beforeAll(async () => {
  session = await Session.start();
  // Beside the artifact dir: the same file system, so a hard link can be made.
  outsideDir = fs.mkdtempSync(path.join(path.dirname(session.artifactDir), 'axpage-outside-'));
  for (const id of [SYMLINKED, HARDLINKED]) {
    for (const ext of ['txt', 'png']) {
      fs.writeFileSync(path.join(outsideDir, `${id}.${ext}`), `${OUTSIDE} ${id}.${ext}\n`);
    }
  }
  for (const ext of ['txt', 'png']) {
    fs.symlinkSync(
      path.join(outsideDir, `${SYMLINKED}.${ext}`),
      path.join(session.artifactDir, `${SYMLINKED}.${ext}`),
    );
    fs.linkSync(
      path.join(outsideDir, `${HARDLINKED}.${ext}`),
      path.join(session.artifactDir, `${HARDLINKED}.${ext}`),
    );
  }
}, 60_000);

afterAll(async () => {
  await session?.close();
  if (outsideDir) fs.rmSync(outsideDir, { recursive: true, force: true });
});

async function readOrError(uri: string): Promise<string> {
  try {
    return JSON.stringify(await session.client.readResource({ uri }));
  } catch (err) {
    return `error: ${String(err)}`;
  }
}

describe('links planted under pair names', () => {
  it.each([
    ['a symlink', SYMLINKED],
    ['a hard link', HARDLINKED],
  ])('the pair resource for %s is an error, never the outside file', async (_what, id) => {
    const read = await readOrError(`axpage://pair/${id}`);
    expect(read).not.toContain(OUTSIDE);
    expect(read).toMatch(/^error: .*no pair/);
  });

  it('the artifact index lists neither link', async () => {
    const index = await readOrError('axpage://artifacts');
    expect(index).not.toContain(SYMLINKED);
    expect(index).not.toContain(HARDLINKED);
  });

  it('ax_visual_diff does not take a hard link as a pair', async () => {
    const form = await session.launchFixture('form.py');
    const tree = await session.call('ax_get_tree', { app: form.pid });
    const after = path.basename(String(tree.structured.file), '.txt');
    const diff = await session.call('ax_visual_diff', { before: HARDLINKED, after });
    expect(diff.isError).toBe(true);
    expect(diff.text).not.toContain(OUTSIDE);
    expect(diff.text).toMatch(/not in .*pruned|cannot be read/);
  });
});
