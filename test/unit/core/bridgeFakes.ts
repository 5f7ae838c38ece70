// Fakes of the ACP-shaped client bridge for the bridge-route and pipeline tests.
import type {
  BridgeCreateOptions,
  ClientBridge,
  CreateTerminalParams,
  OutputSinkLike,
  TerminalExitStatus,
  TerminalHandle,
  TerminalOutput,
} from '../../../src/core/contracts';

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(v: T): void;
  reject(e: unknown): void;
}
export function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const never = <T>(): Promise<T> => new Promise<T>(() => {});

export class FakeTerminalHandle implements TerminalHandle {
  output = '';
  truncated = false;
  /** Every call, in order, so tests can check "kill before output read". */
  log: string[] = [];
  readonly exit = deferred<TerminalExitStatus>();
  /** What kill() does to the process; default: it dies by SIGTERM. */
  killBehaviour: () => Promise<void> = async () => {
    this.exit.resolve({ exitCode: null, signal: 'SIGTERM' });
  };
  currentOutputBehaviour: (() => Promise<TerminalOutput>) | undefined;
  releaseBehaviour: () => Promise<void> = async () => {};
  killCount = 0;
  releaseCount = 0;
  pipedTo: OutputSinkLike | undefined;
  private listeners = new Set<(chunk: string) => void>();
  onOutput?: (listener: (chunk: string) => void) => () => void;
  pipeTo?: (sink: OutputSinkLike) => void;

  constructor(readonly terminalId = 'term-1', opts: { push?: boolean; pipe?: boolean } = {}) {
    if (opts.push) {
      this.onOutput = (listener) => {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
      };
    }
    if (opts.pipe) this.pipeTo = (sink) => (this.pipedTo = sink);
  }

  /** An in-process bridge pushing output as it arrives. */
  push(chunk: string): void {
    this.output += chunk;
    this.pipedTo?.push(chunk);
    for (const l of this.listeners) l(chunk);
  }

  currentOutput(): Promise<TerminalOutput> {
    this.log.push('currentOutput');
    if (this.currentOutputBehaviour) return this.currentOutputBehaviour();
    return Promise.resolve({ output: this.output, truncated: this.truncated, exitStatus: null });
  }
  waitForExit(): Promise<TerminalExitStatus> {
    this.log.push('waitForExit');
    return this.exit.promise;
  }
  /** The reason each kill was given (the status-line words), in order. */
  killReasons: Array<string | undefined> = [];
  kill(why?: string): Promise<void> {
    this.log.push('kill');
    this.killReasons.push(why);
    this.killCount++;
    return this.killBehaviour();
  }
  release(): Promise<void> {
    this.log.push('release');
    this.releaseCount++;
    return this.releaseBehaviour();
  }
}

export class FakeClientBridge implements ClientBridge {
  capabilities = { terminal: true };
  created: CreateTerminalParams[] = [];
  /** The options of each createTerminal call (caller, sandbox, description). */
  createdWith: BridgeCreateOptions[] = [];
  /** When set, createTerminal waits for it (to test abort/timeout during create). */
  gate: Promise<void> | undefined;
  /** Set by a test to see the pipeline warm a caller's shell session. */
  warm: ClientBridge['warm'];
  constructor(readonly handle: FakeTerminalHandle = new FakeTerminalHandle()) {}
  createTerminal = async (params: CreateTerminalParams, options: BridgeCreateOptions = {}): Promise<TerminalHandle> => {
    this.created.push(params);
    this.createdWith.push(options);
    if (this.gate) await this.gate;
    return this.handle;
  };
}
