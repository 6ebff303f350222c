/** Reading one file through its descriptor, where any failure means "no answer". */
import fs from 'node:fs';

/** `read` on the open file, closed after; undefined when it cannot be opened or read. */
export function withFileRead<T>(file: string, read: (fd: number) => T): T | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    return read(fd);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
