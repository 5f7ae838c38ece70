// The policy's WordExpander (core/policy/analysis/wordExpansion.ts), exact by construction: a long-lived
// helper bash (`--norc --noprofile`, no job control, default shell options) expands each word as an
// argument of `set --` in the command's cwd and answers NUL-separated fields. The policy's decision
// is synchronous, and so is the talk with the helper: the deciding thread writes the request into
// a named pipe the helper reads and blocks reading its answer from another (each a FIFO in a
// private folder; Node has no anonymous pipe with blocking ends). A worker thread is only the
// watchdog: a helper that does not answer in time is killed there, its pipe's only writer goes,
// the read ends, the decision asks and says why, and the next decision starts a new helper. The
// words handed here have passed wordExpansion.ts's lexical check: no `$`, no backtick, no unquoted
// metacharacter.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { EXPANSION, globs, MAX_FIELDS, type WordExpander, type WordExpansion } from '../core/policy/analysis/wordExpansion';
import { makeOwnedTempDir } from './sandbox/cleanup/tempSweep';
import { shellKind } from './shellConfig';
import { hostProgram, SYSTEM_BIN_DIRS } from './hostPrograms';

/**
 * The helper's loop: `id cwd n word…` in, `id status (ok count field… | many count | err)…` out.
 * Its stderr is /dev/null already: no redirection per word (each costs bash four system calls).
 */
const HELPER_SCRIPT = `
ulimit -v 2097152 2>/dev/null
set +m +H 2>/dev/null
while IFS= builtin read -r -d '' __id && IFS= builtin read -r -d '' __dir && IFS= builtin read -r -d '' __n; do
  if builtin cd -- "$__dir"; then __r=ok; else __r=nocd; fi
  __o=("$__id" "$__r")
  __i=0
  while (( __i < __n )); do
    __i=$((__i + 1))
    IFS= builtin read -r -d '' __w || builtin exit 0
    [[ $__r == ok ]] || continue
    builtin set --
    if builtin eval "builtin set -- $__w"; then
      if (( $# > ${MAX_FIELDS} )); then __o+=(many "$#")
      else __o+=(ok "$#" "$@"); fi
    else
      __o+=(err)
    fi
  done
  builtin printf '%s\\0' "\${__o[@]}"
done
`;

/** Slots of the shared Int32Array the deciding thread and the watchdog share. */
const REQ = 0;
const DONE = 1;
const PID = 2;
const LIMIT = 3;
const READY = 4;

/**
 * The watchdog: waits for a request (REQ changes), then for its end (DONE becomes it) until the
 * request's limit; past it, it marks the request killed (DONE = -REQ, unless the deciding thread
 * ended it first) and kills the helper's process group. REQ = -1 ends it.
 */
const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
const f = new Int32Array(workerData.shared);
Atomics.store(f, ${READY}, 1);
Atomics.notify(f, ${READY});
let seen = 0;
for (;;) {
  Atomics.wait(f, ${REQ}, seen);
  const req = Atomics.load(f, ${REQ});
  if (req < 0) break;
  seen = req;
  const deadline = Date.now() + Atomics.load(f, ${LIMIT});
  for (;;) {
    const done = Atomics.load(f, ${DONE});
    // Ended, or a newer one began (the deciding thread asks one at a time).
    if (done === req || Atomics.load(f, ${REQ}) !== req) break;
    const left = deadline - Date.now();
    if (left <= 0) {
      if (Atomics.compareExchange(f, ${DONE}, done, -req) === done) {
        const pid = Atomics.load(f, ${PID});
        if (pid > 0) { try { process.kill(-pid, 'SIGKILL'); } catch {} }
      }
      break;
    }
    Atomics.wait(f, ${DONE}, done, left);
  }
}
`;

/** A request larger than this is not sent (it could fill the pipe before the helper reads): the decision asks. */
const MAX_REQUEST_BYTES = 60_000;

/** Variables that would make the helper bash read files, run code or change its options. */
const UNSAFE_ENV = /^(BASH_ENV|ENV|SHELLOPTS|BASHOPTS|CDPATH|GLOBIGNORE|BASH_FUNC_.*|PROMPT_COMMAND|PS4)$/;

export interface BashExpanderOptions {
  /** The bash to run (default: `shell` when it is a bash, else `bash` on PATH, then the usual directories). */
  bash?: string;
  /** The shell the commands run with (shellConfig.ts): the helper is that bash when it is one. */
  shell?: string;
  /** How long one answer may take once the helper runs (default 200 ms: a glob over a huge tree asks instead). */
  timeoutMs?: number;
  /** How long the first answer may take, the worker and the helper starting (default 3000 ms). */
  startTimeoutMs?: number;
  /** How long an answer without globbing (tilde, braces) is reused for the same word in the same cwd (default 1000 ms). */
  cacheMs?: number;
}

const CACHE_SIZE = 2000;

interface Helper {
  child: ChildProcess;
  pid: number;
  /** Where requests are written (the request pipe, read and write: the helper's end stays open). */
  requests: number;
  /** Where answers are read (the answer pipe; its only writer is the helper). */
  answers: number;
  dir: string;
  /** No answer has come from it yet: it may still be starting. */
  fresh: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export class BashExpander implements WordExpander {
  private watchdog: Worker | undefined;
  private readonly shared = new SharedArrayBuffer(32);
  private readonly flag = new Int32Array(this.shared);
  private seq = 0;
  private helper: Helper | undefined;
  private readonly cache = new Map<string, { answer: WordExpansion; at: number }>();
  private readonly bash: string | undefined;
  private disposed = false;
  private readonly buf = Buffer.alloc(65536);

  constructor(private readonly opts: BashExpanderOptions = {}) {
    const configured = opts.shell !== undefined && shellKind(opts.shell) === 'bash' ? opts.shell : undefined;
    this.bash = opts.bash ?? configured ?? hostProgram('bash', [process.env.PATH ?? '', ...SYSTEM_BIN_DIRS, '/opt/homebrew/bin'].join(path.delimiter));
  }

  /** The helper's pid, 0 when none runs (tests). */
  helperPid(): number {
    return this.helper?.pid ?? 0;
  }

  expand(words: readonly string[], cwd: string): WordExpansion[] | { failure: string } {
    if (this.disposed) return { failure: EXPANSION.helper('was disposed') };
    if (this.bash === undefined) return { failure: EXPANSION.noExpander };
    const now = Date.now();
    const ttl = this.opts.cacheMs ?? 1000;
    const out: Array<WordExpansion | undefined> = words.map((w) => {
      const hit = this.cache.get(`${cwd}\0${w}`);
      return hit && now - hit.at < ttl ? hit.answer : undefined;
    });
    const missing = [...new Set(words.filter((_, k) => out[k] === undefined))];
    if (missing.length === 0) return out as WordExpansion[];
    const got = this.ask(missing, cwd);
    if ('failure' in got) return got;
    const at = Date.now();
    if (this.cache.size + missing.length > CACHE_SIZE) this.cache.clear();
    // A glob's answer is the filesystem's of this moment: never reused (a file made since must count).
    missing.forEach((w, k) => {
      if (!globs(w)) this.cache.set(`${cwd}\0${w}`, { answer: got.answers[k], at });
    });
    const byWord = new Map(missing.map((w, k) => [w, got.answers[k]]));
    return words.map((w, k) => out[k] ?? (byWord.get(w) as WordExpansion));
  }

  /** The watchdog thread, started once and ready (it must be before a read may block). */
  private ensureWatchdog(): boolean {
    if (!this.watchdog) {
      const worker = new Worker(WATCHDOG_SOURCE, { eval: true, workerData: { shared: this.shared } });
      worker.unref();
      worker.on('error', () => undefined);
      this.watchdog = worker;
    }
    if (Atomics.load(this.flag, READY) === 1) return true;
    Atomics.wait(this.flag, READY, 0, this.opts.startTimeoutMs ?? 3000);
    return Atomics.load(this.flag, READY) === 1;
  }

  /** The running helper, or a new one with its two pipes. */
  private ensureHelper(): Helper | { failure: string } {
    if (this.helper) return this.helper;
    let dir: string | undefined;
    const fds: number[] = [];
    try {
      dir = makeOwnedTempDir('expander');
      const reqPath = path.join(dir, 'requests');
      const ansPath = path.join(dir, 'answers');
      const mkfifo = hostProgram('mkfifo');
      if (mkfifo === undefined) throw new Error('mkfifo not found');
      const made = spawnSync(mkfifo, ['-m', '600', reqPath, ansPath], { stdio: 'ignore', timeout: 10_000 });
      if (made.status !== 0) throw new Error('mkfifo failed');
      // Read-write opens of a FIFO never block (Linux, macOS); each end the helper gets is opened after one exists.
      const requests = openSync(reqPath, 'r+');
      fds.push(requests);
      const helperIn = openSync(reqPath, 'r');
      fds.push(helperIn);
      const helperOut = openSync(ansPath, 'r+');
      fds.push(helperOut);
      const answers = openSync(ansPath, 'r');
      fds.push(answers);
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !UNSAFE_ENV.test(k)) env[k] = v;
      const child = spawn(this.bash as string, ['--norc', '--noprofile', '-c', HELPER_SCRIPT], { stdio: [helperIn, helperOut, 'ignore'], detached: true, env });
      // The helper has its ends now: ours close, so that its death ends our read.
      closeSync(helperIn);
      closeSync(helperOut);
      fds.splice(1, 2);
      const pid = child.pid ?? 0;
      const helper: Helper = { child, pid, requests, answers, dir, fresh: true };
      child.on('error', () => this.dropHelper(helper));
      child.on('exit', () => this.dropHelper(helper));
      if (pid === 0) {
        this.dropHelper(helper);
        return { failure: EXPANSION.helper('could not start') };
      }
      child.unref();
      Atomics.store(this.flag, PID, pid);
      this.helper = helper;
      return helper;
    } catch (err) {
      for (const fd of fds) closeSync(fd);
      if (dir) rmSync(dir, { recursive: true, force: true });
      return { failure: EXPANSION.helper(`could not start (${(err as Error).message})`) };
    }
  }

  private dropHelper(h: Helper): void {
    if (this.helper === h) {
      this.helper = undefined;
      Atomics.store(this.flag, PID, 0);
    }
    if (h.dir === '') return;
    try {
      process.kill(-h.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    for (const fd of [h.requests, h.answers]) {
      try {
        closeSync(fd);
      } catch {
        // closed
      }
    }
    rmSync(h.dir, { recursive: true, force: true });
    h.dir = '';
  }

  private ask(words: string[], cwd: string): { answers: WordExpansion[] } | { failure: string } {
    const payload = Buffer.from([String(this.seq + 1), cwd, String(words.length), ...words].join('\0') + '\0', 'utf8');
    if (payload.length > MAX_REQUEST_BYTES) return { failure: EXPANSION.helper(`was not asked: the words are over ${MAX_REQUEST_BYTES} bytes`) };
    if (!this.ensureWatchdog()) return { failure: EXPANSION.helper('has no watchdog (its thread did not start)') };
    const got = this.ensureHelper();
    if ('failure' in got) return got;
    const h = got;
    const limit = h.fresh ? (this.opts.startTimeoutMs ?? 3000) : (this.opts.timeoutMs ?? 200);
    const id = ++this.seq;
    const before = Atomics.load(this.flag, DONE);
    Atomics.store(this.flag, LIMIT, limit);
    Atomics.store(this.flag, REQ, id);
    Atomics.notify(this.flag, REQ);
    let result: { answers: WordExpansion[] } | { failure: string };
    try {
      // Never blocks: the request pipe is empty (every earlier request was read whole) and this fits.
      writeSync(h.requests, payload);
      result = this.readAnswer(h, id, words.length);
    } catch (err) {
      result = { failure: EXPANSION.helper(`could not be asked (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`) };
    }
    if (Atomics.compareExchange(this.flag, DONE, before, id) !== before) {
      // The watchdog ended this request: the helper is being killed; the next decision starts a new one.
      this.dropHelper(h);
      return { failure: EXPANSION.helper(`did not answer within ${limit} ms`) };
    }
    Atomics.notify(this.flag, DONE);
    if ('failure' in result) this.dropHelper(h);
    else h.fresh = false;
    return result;
  }

  /** Reads answer `id` for `n` words (blocking, ended by the watchdog); a failure drops the helper. */
  private readAnswer(h: Helper, id: number, n: number): { answers: WordExpansion[] } | { failure: string } {
    const tokens: Array<string | null> = [];
    let partial: Buffer[] = [];
    for (;;) {
      const read = readSync(h.answers, this.buf, 0, this.buf.length, null);
      if (read === 0) return { failure: EXPANSION.helper('exited before answering') };
      const chunk = this.buf.subarray(0, read);
      let from = 0;
      for (let i = chunk.indexOf(0); i >= 0; i = chunk.indexOf(0, from)) {
        partial.push(chunk.subarray(from, i));
        const bytes = Buffer.concat(partial);
        partial = [];
        let text: string | null;
        try {
          text = utf8.decode(bytes);
        } catch {
          text = null;
        }
        tokens.push(text);
        from = i + 1;
      }
      if (from < chunk.length) partial.push(Buffer.from(chunk.subarray(from)));
      const parsed = parseAnswer(tokens, id, n);
      if (parsed !== undefined) return parsed;
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.helper) this.dropHelper(this.helper);
    Atomics.store(this.flag, REQ, -1);
    Atomics.notify(this.flag, REQ);
    const w = this.watchdog;
    this.watchdog = undefined;
    void w?.terminate();
  }
}

/** The answer once `tokens` hold all of it, a failure when they cannot be it, else undefined (read on). */
function parseAnswer(tokens: ReadonlyArray<string | null>, id: number, n: number): { answers: WordExpansion[] } | { failure: string } | undefined {
  let k = 0;
  const next = (): string | null | undefined => (k < tokens.length ? tokens[k++] : undefined);
  const gotId = next();
  const status = next();
  if (status === undefined) return undefined;
  if (gotId !== String(id)) return { failure: EXPANSION.helper('answered out of turn') };
  if (status === 'nocd') return { failure: EXPANSION.helper('could not enter the working directory') };
  const out: WordExpansion[] = [];
  for (let w = 0; w < n; w++) {
    const kind = next();
    if (kind === undefined) return undefined;
    if (kind === 'err') {
      out.push({ error: 'bash reported an error' });
      continue;
    }
    const count = next();
    if (count === undefined) return undefined;
    if (kind === 'many') {
      out.push({ error: EXPANSION.tooMany(MAX_FIELDS) });
      continue;
    }
    const c = Number(count);
    if (tokens.length - k < c) return undefined;
    const fields = tokens.slice(k, k + c);
    k += c;
    if (fields.some((f) => f === null)) out.push({ error: 'it names a file whose name is not valid UTF-8' });
    else out.push({ fields: fields as string[] });
  }
  return { answers: out };
}
