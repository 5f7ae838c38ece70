// Keeps the last `limit` bytes of a byte stream, cut so it never starts inside a UTF-8 code point
// (ACP's `outputByteLimit` contract). Memory stays under 2×limit whatever the stream size.

export class ByteTail {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (this.limit <= 0) {
      this.dropped ||= chunk.length > 0;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.limit * 2) this.compact();
  }

  /** True once any byte was dropped from the front. */
  get truncated(): boolean {
    return this.dropped || this.size > this.limit;
  }

  text(): string {
    this.compact();
    return this.chunks.length === 0 ? '' : this.chunks[0].toString('utf8');
  }

  private compact(): void {
    let buf = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    if (buf.length > this.limit) {
      let start = buf.length - this.limit;
      // Step forward past continuation bytes (10xxxxxx) so the kept text starts on a code point.
      while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
      buf = buf.subarray(start);
      this.dropped = true;
    }
    this.chunks = buf.length ? [Buffer.from(buf)] : [];
    this.size = buf.length;
  }
}
