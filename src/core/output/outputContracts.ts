// The output side's types: what an output sink reports, and where full output is kept.

/** oh-my-pi's `OutputSummary`, field names exact. */
export interface OutputSummary {
  output: string;
  truncated: boolean;
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  outputBytes: number;
  elidedBytes?: number;
  elidedLines?: number;
  columnDroppedBytes?: number;
  columnTruncatedLines?: number;
  columnMax?: number;
  artifactId?: string;
}

export interface OutputSinkOptions {
  /** Where the full stream spills once past the inline budget or once a line was column-cut. */
  artifactPath?: string;
  artifactId?: string;
  /** Head window in bytes (default 20 KiB; 0 = tail only). */
  headBytes?: number;
  /** Per-line byte cap (default 768; 0 disables). */
  maxColumns?: number;
  /** In-memory budget (default 50 KiB). */
  spillThreshold?: number;
  /** Sanitised, un-capped text, throttled. */
  onChunk?: (text: string) => void;
  chunkThrottleMs?: number;
}

export interface OutputSinkLike {
  /** Raw bytes (decoded as streaming UTF-8) or already-decoded text. */
  push(chunk: Uint8Array | string): void;
  dump(notice?: string): Promise<OutputSummary>;
  dispose(): void;
}

export interface Artifact {
  id: string;
  path: string;
}

export interface ArtifactStore {
  /** Reserves an id and a file path (the file is created lazily by whoever writes it). */
  allocate(kind: string): Artifact;
  /** Saves text as a new artifact and returns its id. */
  save(kind: string, text: string): Promise<string>;
  /** The file path of an id, or undefined when unknown. */
  pathOf(id: string): string | undefined;
  /** Base directory (`local://` lives under `<dir>/local`). */
  readonly dir: string;
}
