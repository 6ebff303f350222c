/**
 * The GNU build-id is read from the notes the program headers point to, in either byte
 * order and word size; anything else (no ELF magic, no note, another owner's note, a
 * truncated file) has none. On hand-built ELF images and the system's /bin/true.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  buildIdNote,
  gnuBuildId,
  gnuBuildIdOfFile,
} from '../../src/platform/linux/elf-build-id.js';

/** One note: namesz, descsz, type, then name and descriptor each padded to 4 bytes. */
function note(name: string, type: number, desc: Buffer, little: boolean): Buffer {
  const head = Buffer.alloc(12);
  const put = (v: number, at: number) =>
    little ? head.writeUInt32LE(v, at) : head.writeUInt32BE(v, at);
  const n = Buffer.from(`${name}\0`, 'latin1');
  put(n.length, 0);
  put(desc.length, 4);
  put(type, 8);
  const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4)]);
  return Buffer.concat([head, pad(n), pad(desc)]);
}

/** A minimal 32-bit big-endian ELF: header, one PT_NOTE program header, the notes. */
function elf32be(notes: Buffer): Buffer {
  const header = Buffer.alloc(52);
  header.writeUInt32BE(0x7f454c46, 0);
  header[4] = 1; // ELFCLASS32
  header[5] = 2; // ELFDATA2MSB
  header.writeUInt32BE(52, 28); // e_phoff
  header.writeUInt16BE(32, 42); // e_phentsize
  header.writeUInt16BE(1, 44); // e_phnum
  const ph = Buffer.alloc(32);
  ph.writeUInt32BE(4, 0); // PT_NOTE
  ph.writeUInt32BE(84, 4); // p_offset
  ph.writeUInt32BE(notes.length, 16); // p_filesz
  return Buffer.concat([header, ph, notes]);
}

const readerOf = (image: Buffer) => (offset: number, length: number) =>
  image.subarray(offset, offset + length);

describe('GNU build-id', () => {
  const id = Buffer.from('0123456789abcdef0123456789abcdef01234567', 'hex');

  it('finds the build-id note after other notes, in either byte order', () => {
    const notes = Buffer.concat([note('GNU', 5, Buffer.alloc(16), true), note('GNU', 3, id, true)]);
    expect(buildIdNote(notes, true)).toBe(id.toString('hex'));
    expect(gnuBuildId(readerOf(elf32be(note('GNU', 3, id, false))))).toBe(id.toString('hex'));
  });

  it('has none for another owner, a truncated note, no magic or an empty file', () => {
    expect(buildIdNote(note('Go', 3, id, true), true)).toBeUndefined();
    expect(buildIdNote(note('GNU', 3, id, true).subarray(0, 20), true)).toBeUndefined();
    const image = elf32be(note('GNU', 3, id, false));
    expect(gnuBuildId(readerOf(image.subarray(0, 90)))).toBeUndefined();
    const script = Buffer.from('#!/bin/sh\nexec zenity "$@"\n'.padEnd(80, ' '));
    expect(gnuBuildId(readerOf(script))).toBeUndefined();
    expect(gnuBuildId(readerOf(Buffer.alloc(0)))).toBeUndefined();
  });

  it('reads an installed binary as readelf does', () => {
    const out = execFileSync('readelf', ['-n', '/bin/true'], { encoding: 'utf8' });
    expect(gnuBuildIdOfFile('/bin/true')).toBe(/Build ID: ([0-9a-f]+)/.exec(out)?.[1]);
    expect(gnuBuildIdOfFile('/etc/passwd')).toBe('');
    expect(gnuBuildIdOfFile('/no/such/file')).toBeUndefined();
  });
});
