// Keeps the last `limit` bytes of a byte stream, cut so it never starts inside a UTF-8 code point
// (ACP's `outputByteLimit` contract). Chunks are kept as they came and whole chunks are dropped from
// the front once the rest still covers the limit, so the hot path copies nothing; memory stays under
// limit + one chunk.

export class ByteTail {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.limit <= 0) {
      this.dropped = true;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0].length >= this.limit) {
      this.size -= (this.chunks.shift() as Buffer).length;
      this.dropped = true;
    }
  }

  /** True once any byte was dropped from the front. */
  get truncated(): boolean {
    return this.dropped || this.size > this.limit;
  }

  text(): string {
    if (this.size === 0) return '';
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    let start = Math.max(0, all.length - this.limit);
    if (start > 0 || this.dropped) {
      // Step forward past continuation bytes (10xxxxxx) so the kept text starts on a code point.
      while (start < all.length && (all[start] & 0xc0) === 0x80) start++;
    }
    return all.subarray(start).toString('utf8');
  }
}
