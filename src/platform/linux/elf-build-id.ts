/**
 * An ELF file's GNU build-id (the NT_GNU_BUILD_ID note the linker writes): it names the
 * linked program, so it survives bytes appended to the file or data patched inside it,
 * which change its size and SHA-256. Read from the PT_NOTE segments the program headers
 * point to: the header, the program headers and the notes, a few hundred bytes.
 */
import fs from 'node:fs';
import { withFileRead } from './read-fd.js';

const PT_NOTE = 4;
const NT_GNU_BUILD_ID = 3;
/** Bounds on what a hostile file can make us read. */
const MAX_PROGRAM_HEADERS = 256;
const MAX_NOTE_BYTES = 64 * 1024;

/** Reads `length` bytes at `offset` (fewer at the end of the file). */
export type ReadAt = (offset: number, length: number) => Buffer;

/** The build-id as hex, or undefined for a non-ELF file or an ELF without one. */
export function gnuBuildId(read: ReadAt): string | undefined {
  const ident = read(0, 64);
  if (ident.length < 52 || ident.readUInt32BE(0) !== 0x7f454c46) return undefined;
  const is64 = ident[4] === 2;
  const little = ident[5] === 1;
  if ((!is64 && ident[4] !== 1) || (!little && ident[5] !== 2)) return undefined;
  const u16 = (b: Buffer, at: number) => (little ? b.readUInt16LE(at) : b.readUInt16BE(at));
  const u32 = (b: Buffer, at: number) => (little ? b.readUInt32LE(at) : b.readUInt32BE(at));
  const word = (b: Buffer, at: number) =>
    is64 ? Number(little ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at)) : u32(b, at);
  if (is64 && ident.length < 64) return undefined;

  const phoff = word(ident, is64 ? 32 : 28);
  const phentsize = u16(ident, is64 ? 54 : 42);
  const phnum = u16(ident, is64 ? 56 : 44);
  if (phoff === 0 || phentsize < (is64 ? 56 : 32) || phnum > MAX_PROGRAM_HEADERS) return undefined;
  const headers = read(phoff, phentsize * phnum);
  let budget = MAX_NOTE_BYTES;
  for (let i = 0; i < phnum && (i + 1) * phentsize <= headers.length; i++) {
    const h = i * phentsize;
    if (u32(headers, h) !== PT_NOTE) continue;
    const offset = word(headers, is64 ? h + 8 : h + 4);
    const size = Math.min(word(headers, is64 ? h + 32 : h + 16), budget);
    budget -= size;
    const id = buildIdNote(read(offset, size), little);
    if (id !== undefined) return id;
    if (budget <= 0) break;
  }
  return undefined;
}

/** The NT_GNU_BUILD_ID descriptor among a segment's notes (each field 4-byte aligned). */
export function buildIdNote(notes: Buffer, little: boolean): string | undefined {
  const u32 = (at: number) => (little ? notes.readUInt32LE(at) : notes.readUInt32BE(at));
  const align4 = (n: number) => (n + 3) & ~3;
  let at = 0;
  while (at + 12 <= notes.length) {
    const namesz = u32(at);
    const descsz = u32(at + 4);
    const type = u32(at + 8);
    const name = at + 12;
    const desc = name + align4(namesz);
    if (desc + descsz > notes.length) return undefined;
    if (
      type === NT_GNU_BUILD_ID &&
      descsz > 0 &&
      notes.toString('latin1', name, name + namesz) === 'GNU\0'
    ) {
      return notes.toString('hex', desc, desc + descsz);
    }
    at = desc + align4(descsz);
  }
  return undefined;
}

/**
 * The build-id of a file on disk (or /proc/PID/exe): '' when it has none (a script, an
 * ELF linked without one), undefined when it cannot be read (so no answer is kept).
 */
export function gnuBuildIdOfFile(file: string): string | undefined {
  return withFileRead(file, (fd) => {
    const read: ReadAt = (offset, length) => {
      const buf = Buffer.alloc(Math.max(0, length));
      const n = fs.readSync(fd, buf, 0, buf.length, offset);
      return buf.subarray(0, n);
    };
    return gnuBuildId(read) ?? '';
  });
}
