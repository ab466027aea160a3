/**
 * Cuts a file given as pieces of any size into chunks of `size` bytes (the last may be shorter).
 * Views, not copies, where a chunk lies within one piece; a chunk spanning pieces is copied once.
 */
export async function* rechunk(
  pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  size: number,
): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const piece of pieces) {
    let rest = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    while (pendingBytes + rest.length >= size) {
      const head = rest.subarray(0, size - pendingBytes);
      yield pending.length === 0 ? head : Buffer.concat([...pending, head], size);
      pending = [];
      pendingBytes = 0;
      rest = rest.subarray(head.length);
    }
    if (rest.length > 0) {
      pending.push(rest);
      pendingBytes += rest.length;
    }
  }
  if (pendingBytes > 0) yield pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
}
