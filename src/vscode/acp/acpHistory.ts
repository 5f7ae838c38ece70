// ACP `terminal/create` calls in the history: they pass the policy outside the pipeline (the agent
// drives the terminal itself), so this records the verdict and the user's answer as they happen, adds
// the entry when the terminal starts (or at once when it was refused), and completes it at exit.
import { randomUUID } from 'node:crypto';
import type { TerminalCreatedEvent } from '../../acp/agentConnection';
import type { ApprovalAnswer, CallerInfo, PolicyDecision } from '../../core/contracts';
import { decidedBy, type HistoryEntry, type PolicyTrace } from '../../core/history';
import { STOPPED } from '../../core/humanMessages';
import { commandDeniedMessage, userDeniedMessage } from '../../core/policy/policyGate';
import { findViolations } from '../../core/sandboxRefusals';
import type { HistoryStore } from '../history/historyStore';

interface Pending {
  cwd: string;
  trace: PolicyTrace;
  reason: string;
}

export class AcpHistoryRecorder {
  /** Verdicts of lines on their way to a terminal, oldest first per line. */
  private readonly pending = new Map<string, Pending[]>();

  constructor(
    private readonly store: HistoryStore,
    private readonly caller: () => CallerInfo,
  ) {}

  explained(line: string, cwd: string, decision: PolicyDecision | undefined): void {
    if (!decision) return;
    // As complete as a pipeline row: the rule's layer and where it was read, the other restrictive rules.
    const trace: PolicyTrace = {
      decision: decision.decision,
      kind: decision.kind,
      ...(decision.rule ? { rule: decision.rule.match } : {}),
      ...(decision.rule && decision.layer ? { layer: decision.layer } : {}),
      ...(decision.rule && decision.layerSource !== undefined ? { layerSource: decision.layerSource } : {}),
    };
    if (decision.decision === 'deny') {
      this.refused(line, cwd, trace, commandDeniedMessage(decision.reason));
      return;
    }
    const queue = this.pending.get(line) ?? [];
    queue.push({ cwd, trace, reason: decision.reason });
    this.pending.set(line, queue);
  }

  answered(line: string, answer: ApprovalAnswer, cancelled: boolean): void {
    const queue = this.pending.get(line);
    const last = queue?.[queue.length - 1];
    if (!last) return;
    last.trace.answer = answer.kind;
    if (answer.kind === 'deny' || cancelled) {
      queue.pop();
      this.refused(line, last.cwd, last.trace, cancelled ? 'Cancelled before it ran' : userDeniedMessage(last.reason), cancelled);
    }
  }

  created(e: TerminalCreatedEvent): void {
    const queue = this.pending.get(e.commandLine);
    const found = queue?.shift();
    if (queue && queue.length === 0) this.pending.delete(e.commandLine);
    const started = Date.now();
    const entry: HistoryEntry = {
      id: randomUUID(),
      at: started,
      command: e.commandLine,
      caller: this.caller(),
      decision: decidedBy(found?.trace, false),
      end: 'running',
      terminalId: e.terminalId,
      ...(found ? { cwd: found.cwd } : {}),
    };
    // How the bridge runs it (CommandTerminal): outside the OS sandbox or in it, and why it was stopped.
    const shown = e.handle as { level?: string; stopReason?: string };
    if (shown.level !== undefined && shown.level !== 'sandboxed') entry.outsideSandbox = true;
    this.store.add(entry);
    void e.handle.waitForExit().then(async (status) => {
      entry.durationMs = Date.now() - started;
      if (status.signal) {
        entry.end = 'signal';
        entry.signal = status.signal;
        if (shown.stopReason === STOPPED.ctrlC) entry.stoppedWithCtrlC = true;
      } else {
        entry.end = 'exit';
        entry.exitCode = status.exitCode ?? 0;
      }
      let text: string | undefined;
      try {
        text = (await e.handle.currentOutput()).output;
        entry.outputBytes = Buffer.byteLength(text, 'utf8');
        // What the sandbox refused, read from the output as for every other caller's row.
        if (shown.level === 'sandboxed') {
          const refused = findViolations(text);
          if (refused.paths.length > 0 || refused.hosts.length > 0) entry.sandboxRefused = { paths: refused.paths, hosts: refused.hosts };
        }
      } catch {
        // Released before we read it: the entry keeps its status without the output.
      }
      this.store.update(entry, text);
    }, () => undefined);
  }

  private refused(line: string, cwd: string, trace: PolicyTrace, note: string, cancelled = false): void {
    this.store.add({
      id: randomUUID(),
      at: Date.now(),
      command: line,
      cwd,
      caller: this.caller(),
      decision: decidedBy(trace, cancelled),
      end: 'not-run',
      note,
    }, note);
  }
}
