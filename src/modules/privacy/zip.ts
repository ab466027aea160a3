import { crc32 } from 'node:zlib';

/** One file of an archive: its path inside it and its bytes, produced a piece at a time. */
export interface ZipEntry {
  name: string;
  modified: Date;
  data(): AsyncIterable<Uint8Array>;
}

/** Classic ZIP offsets are 32-bit: an export past 4 GiB would need ZIP64, which this writer leaves out. */
const MAX_OFFSET = 0xffffffff;

/**
 * A ZIP archive written as it is read: each entry is stored (method 0) with its CRC and sizes in a
 * data descriptor after the bytes, so nothing is buffered beyond the piece in hand and the central
 * directory (a few dozen bytes per entry). Flag bit 3 (descriptor) and bit 11 (UTF-8 names).
 * docs/adr/0092-data-subject-rights.md says why no library.
 */
export async function* zipStream(entries: AsyncIterable<ZipEntry>): AsyncGenerator<Buffer> {
  const central: Buffer[] = [];
  let offset = 0;
  let count = 0;
  for await (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const { time, date } = dosTime(entry.modified);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(0x0808, 6);
    header.writeUInt16LE(0, 8);
    header.writeUInt16LE(time, 10);
    header.writeUInt16LE(date, 12);
    header.writeUInt16LE(name.length, 26);
    const start = offset;
    yield header;
    yield name;
    offset += header.length + name.length;
    let crc = 0;
    let size = 0;
    for await (const piece of entry.data()) {
      if (piece.length === 0) continue;
      crc = crc32(piece, crc);
      size += piece.length;
      yield Buffer.from(piece.buffer, piece.byteOffset, piece.length);
    }
    offset += size;
    if (offset > MAX_OFFSET) throw new Error('export larger than 4 GiB: ZIP64 is not written');
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc >>> 0, 4);
    descriptor.writeUInt32LE(size, 8);
    descriptor.writeUInt32LE(size, 12);
    yield descriptor;
    offset += descriptor.length;
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(0x0808, 8);
    record.writeUInt16LE(0, 10);
    record.writeUInt16LE(time, 12);
    record.writeUInt16LE(date, 14);
    record.writeUInt32LE(crc >>> 0, 16);
    record.writeUInt32LE(size, 20);
    record.writeUInt32LE(size, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE(start, 42);
    central.push(record, name);
    count += 1;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  yield directory;
  yield end;
}

function dosTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, d.getUTCFullYear());
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}
