// The policy's WordExpander (core/policy/wordExpansion.ts), exact by construction: a long-lived
// helper bash (`--norc --noprofile`, no job control, default shell options) expands each word as an
// argument of `set --` in the command's cwd and answers NUL-separated fields. The policy's decision
// is synchronous, so the helper is owned by a worker thread and the caller blocks on a
// SharedArrayBuffer with `Atomics.wait`, bounded: a helper that does not answer in time is killed,
// the decision asks and says why, and the next decision starts a new one. The words handed here
// have passed wordExpansion.ts's lexical check: no `$`, no backtick, no unquoted metacharacter.
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { EXPANSION, globs, MAX_FIELDS, type WordExpander, type WordExpansion } from '../core/policy/wordExpansion';
import { findOnPath, shellKind } from './shellConfig';

/** The helper's loop: `id cwd n word…` in, `id status (ok count field… | many count | err)…` out. */
const HELPER_SCRIPT = `
ulimit -v 2097152 2>/dev/null
set +m +H 2>/dev/null
while IFS= builtin read -r -d '' __id && IFS= builtin read -r -d '' __dir && IFS= builtin read -r -d '' __n; do
  if builtin cd -- "$__dir" 2>/dev/null; then __r=ok; else __r=nocd; fi
  __o=("$__id" "$__r")
  __i=0
  while (( __i < __n )); do
    __i=$((__i + 1))
    IFS= builtin read -r -d '' __w || builtin exit 0
    [[ $__r == ok ]] || continue
    builtin set --
    if builtin eval "builtin set -- $__w" 2>/dev/null; then
      if (( $# > ${MAX_FIELDS} )); then __o+=(many "$#")
      else __o+=(ok "$#" "$@"); fi
    else
      __o+=(err)
    fi
  done
  builtin printf '%s\\0' "\${__o[@]}"
done
`;

/**
 * The worker: starts the helper when a request finds none, writes requests, parses answers,
 * posts them back and bumps the shared counter; kills the helper's process group on request.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { spawn } = require('node:child_process');
const { port, shared, shell, script, env } = workerData;
const flag = new Int32Array(shared);
const utf8 = new TextDecoder('utf-8', { fatal: true });
let child = null;
let pending = null;
let tokens = [];
let partial = [];

function reply(msg) {
  port.postMessage(msg);
  Atomics.add(flag, 0, 1);
  Atomics.notify(flag, 0);
}

function kill() {
  if (!child) return;
  const c = child;
  child = null;
  Atomics.store(flag, 1, 0);
  try { process.kill(-c.pid, 'SIGKILL'); } catch { try { c.kill('SIGKILL'); } catch {} }
}

function fail(why) {
  const p = pending;
  pending = null;
  tokens = [];
  partial = [];
  if (p) reply({ id: p.id, failure: why });
}

function start() {
  const c = spawn(shell, ['--norc', '--noprofile', '-c', script], { stdio: ['pipe', 'pipe', 'ignore'], detached: true, env });
  child = c;
  tokens = [];
  partial = [];
  c.on('error', (err) => { if (child === c) { child = null; fail('could not start (' + err.message + ')'); } });
  c.on('exit', (code, signal) => {
    if (child !== c) return;
    child = null;
    Atomics.store(flag, 1, 0);
    fail('exited (' + (signal || 'code ' + code) + ')');
  });
  c.stdin.on('error', () => {});
  c.stdout.on('data', (chunk) => {
    if (child !== c) return;
    let from = 0;
    for (let i = chunk.indexOf(0); i >= 0; i = chunk.indexOf(0, from)) {
      partial.push(chunk.subarray(from, i));
      const bytes = Buffer.concat(partial);
      partial = [];
      let text;
      try { text = utf8.decode(bytes); } catch { text = null; }
      tokens.push(text);
      from = i + 1;
    }
    if (from < chunk.length) partial.push(Buffer.from(chunk.subarray(from)));
    parse();
  });
  if (c.pid) Atomics.store(flag, 1, c.pid);
}

function parse() {
  const p = pending;
  if (!p) { tokens = []; return; }
  let k = 0;
  const next = () => (k < tokens.length ? tokens[k++] : undefined);
  const id = next();
  const status = next();
  if (status === undefined) return;
  if (id !== String(p.id)) { kill(); fail('answered out of turn'); return; }
  if (status === 'nocd') { pending = null; tokens = []; reply({ id: p.id, failure: 'could not enter the working directory' }); return; }
  const out = [];
  for (let w = 0; w < p.n; w++) {
    const kind = next();
    if (kind === undefined) return;
    if (kind === 'err') { out.push({ error: 'bash reported an error' }); continue; }
    const count = next();
    if (count === undefined) return;
    if (kind === 'many') { out.push({ error: 'many:' + count }); continue; }
    const n = Number(count);
    if (tokens.length - k < n) return;
    const fields = tokens.slice(k, k + n);
    k += n;
    if (fields.some((f) => f === null)) out.push({ error: 'it names a file whose name is not valid UTF-8' });
    else out.push({ fields });
  }
  pending = null;
  tokens = [];
  reply({ id: p.id, answers: out });
}

port.on('message', (msg) => {
  if (msg.kill) { kill(); fail('was stopped'); return; }
  if (!child) start();
  pending = { id: msg.id, n: msg.words.length };
  tokens = [];
  partial = [];
  const parts = [String(msg.id), msg.cwd, String(msg.words.length), ...msg.words];
  child.stdin.write(parts.join('\\0') + '\\0');
});
`;

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

interface Answer {
  id: number;
  answers?: Array<{ fields: string[] } | { error: string }>;
  failure?: string;
}

export class BashExpander implements WordExpander {
  private worker: Worker | undefined;
  private port: MessagePort | undefined;
  private readonly shared = new SharedArrayBuffer(8);
  private readonly flag = new Int32Array(this.shared);
  private seq = 0;
  /** No answer has come from the current helper yet: it may still be starting. */
  private fresh = true;
  private readonly cache = new Map<string, { answer: WordExpansion; at: number }>();
  private readonly bash: string | undefined;
  private disposed = false;

  constructor(private readonly opts: BashExpanderOptions = {}) {
    const configured = opts.shell !== undefined && shellKind(opts.shell) === 'bash' ? opts.shell : undefined;
    this.bash = opts.bash ?? configured ?? findOnPath('bash', process.env, ['/bin', '/usr/bin', '/usr/local/bin', '/opt/homebrew/bin']);
  }

  /** The helper's pid, 0 when none runs (tests). */
  helperPid(): number {
    return Atomics.load(this.flag, 1);
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

  private ensureWorker(): { worker: Worker; port: MessagePort } {
    if (this.worker && this.port) return { worker: this.worker, port: this.port };
    const { port1, port2 } = new MessageChannel();
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !UNSAFE_ENV.test(k)) env[k] = v;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { port: port2, shared: this.shared, shell: this.bash, script: HELPER_SCRIPT, env },
      transferList: [port2],
    });
    worker.unref();
    worker.on('error', () => this.dropWorker());
    worker.on('exit', () => this.dropWorker());
    port1.unref();
    this.worker = worker;
    this.port = port1;
    this.fresh = true;
    return { worker, port: port1 };
  }

  private dropWorker(): void {
    this.killHelper();
    this.port?.close();
    this.worker = undefined;
    this.port = undefined;
  }

  private killHelper(): void {
    const pid = Atomics.load(this.flag, 1);
    if (pid > 0) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      Atomics.store(this.flag, 1, 0);
    }
  }

  private ask(words: string[], cwd: string): { answers: WordExpansion[] } | { failure: string } {
    const { port } = this.ensureWorker();
    const id = ++this.seq;
    const wasFresh = this.fresh || this.helperPid() === 0;
    const limit = wasFresh ? (this.opts.startTimeoutMs ?? 3000) : (this.opts.timeoutMs ?? 200);
    const deadline = performance.now() + limit;
    port.postMessage({ id, cwd, words });
    for (;;) {
      const seen = Atomics.load(this.flag, 0);
      let msg = receiveMessageOnPort(port);
      while (msg && (msg.message as Answer).id !== id) msg = receiveMessageOnPort(port);
      if (msg) {
        const answer = msg.message as Answer;
        if (answer.failure !== undefined) return { failure: EXPANSION.helper(answer.failure) };
        this.fresh = false;
        return { answers: (answer.answers ?? []).map(toExpansion) };
      }
      const left = deadline - performance.now();
      if (left <= 0) break;
      Atomics.wait(this.flag, 0, seen, left);
    }
    // No answer in time: the helper is stopped; the next decision starts a new one.
    port.postMessage({ kill: true });
    this.killHelper();
    return { failure: EXPANSION.helper(`did not answer within ${limit} ms`) };
  }

  dispose(): void {
    this.disposed = true;
    this.killHelper();
    const w = this.worker;
    this.dropWorker();
    void w?.terminate();
  }
}

function toExpansion(a: { fields: string[] } | { error: string }): WordExpansion {
  if ('fields' in a) return { fields: a.fields };
  if (a.error.startsWith('many:')) return { error: EXPANSION.tooMany(MAX_FIELDS) };
  return { error: a.error };
}
