// `session/request_permission` as an editor dialog: the agent's options become buttons (their kinds,
// not their ids, carry the meaning), a dismissed dialog or a cancelled turn answers `cancelled`, and an
// "always" answer is remembered for this agent so the same kind of tool call is not asked again.
export type PermissionOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

export interface PermissionOptionLike {
  optionId: string;
  name: string;
  kind: PermissionOptionKind;
}

export interface PermissionToolCall {
  toolCallId: string;
  title?: string | null;
  kind?: string | null;
  rawInput?: unknown;
}

export type PermissionOutcome = { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' };

/** A modal question with buttons; the answer is the chosen label, or undefined when dismissed. */
export interface PermissionQuestion {
  message: string;
  detail?: string;
  buttons: string[];
}

export interface PermissionAsker {
  ask(question: PermissionQuestion, signal?: AbortSignal): Promise<string | undefined>;
}

export function permissionTitle(agentName: string, toolTitle: string): string {
  return `${agentName} asks: ${toolTitle}`;
}
export const UNTITLED_TOOL_CALL = 'run a tool';

const KIND_ORDER: PermissionOptionKind[] = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];

/** Button labels for the options, unique even when an agent names two options alike. */
export function buttonLabels(options: PermissionOptionLike[]): string[] {
  const seen = new Set<string>();
  return options.map((o) => {
    let label = o.name.trim() || o.kind;
    if (seen.has(label)) label = `${label} (${o.kind})`;
    seen.add(label);
    return label;
  });
}

/**
 * How long a command the user allowed in the agent's own permission question stays approved for the
 * `terminal/create` that follows it (the agent asks, then runs; it does not wait minutes between).
 */
export const ALLOWED_COMMAND_TTL_MS = 120_000;

/** The command line a tool call will run, when its input says (`rawInput.command`). */
export function toolCallCommand(toolCall: PermissionToolCall): string | undefined {
  const input = toolCall.rawInput;
  if (typeof input !== 'object' || input === null) return undefined;
  const command = (input as { command?: unknown }).command;
  if (typeof command === 'string' && command.trim() !== '') return command.trim();
  if (Array.isArray(command) && command.every((w) => typeof w === 'string')) return (command as string[]).join(' ').trim() || undefined;
  return undefined;
}

export class PermissionHost {
  /** Remembered "always" answers of this agent: tool-call key → the kind chosen. */
  private readonly remembered = new Map<string, 'allow_always' | 'reject_always'>();
  /** Commands the user just allowed in a permission question: command line → until when. */
  private readonly allowedCommands = new Map<string, number>();

  constructor(
    private readonly agentName: string,
    private readonly asker: PermissionAsker,
  ) {}

  async request(
    toolCall: PermissionToolCall,
    options: PermissionOptionLike[],
    signal: AbortSignal,
  ): Promise<PermissionOutcome> {
    if (signal.aborted || options.length === 0) return { outcome: 'cancelled' };
    const key = rememberKey(toolCall);
    const kept = this.remembered.get(key);
    if (kept) {
      const option = options.find((o) => o.kind === kept) ?? options.find((o) => o.kind === onceOf(kept));
      if (option) return { outcome: 'selected', optionId: option.optionId };
    }

    const ordered = [...options].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
    const labels = buttonLabels(ordered);
    const question: PermissionQuestion = {
      message: permissionTitle(this.agentName, toolCall.title?.trim() || UNTITLED_TOOL_CALL),
      detail: describeInput(toolCall),
      buttons: labels,
    };
    // The test responder ignores the signal, so the cancel race lives here, not only in the prompter.
    const answer = await Promise.race([
      this.asker.ask(question, signal),
      new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true })),
    ]);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal may have fired while we awaited.
    if (signal.aborted || answer === undefined) return { outcome: 'cancelled' };
    const chosen = ordered.find((_, k) => labels[k] === answer);
    if (!chosen) return { outcome: 'cancelled' };
    if (chosen.kind === 'allow_always' || chosen.kind === 'reject_always') this.remembered.set(key, chosen.kind);
    const command = toolCallCommand(toolCall);
    if (command !== undefined && (chosen.kind === 'allow_once' || chosen.kind === 'allow_always')) {
      // Expired entries go as new ones come: the map holds only the last couple of minutes' answers.
      const now = Date.now();
      for (const [k, until] of this.allowedCommands) if (until < now) this.allowedCommands.delete(k);
      this.allowedCommands.set(command, now + ALLOWED_COMMAND_TTL_MS);
    }
    return { outcome: 'selected', optionId: chosen.optionId };
  }

  /**
   * True (once) when the person just allowed exactly this command line in the agent's own permission
   * question: the terminal it creates for it is not asked about a second time. Deny rules are
   * checked before this is ever consulted.
   */
  takeAllowedCommand(commandLine: string): boolean {
    const until = this.allowedCommands.get(commandLine.trim());
    if (until === undefined) return false;
    this.allowedCommands.delete(commandLine.trim());
    return until >= Date.now();
  }
}

function onceOf(kind: 'allow_always' | 'reject_always'): PermissionOptionKind {
  return kind === 'allow_always' ? 'allow_once' : 'reject_once';
}

/** Same tool kind and title: a repeated command, or the same kind of edit, asks once. */
function rememberKey(toolCall: PermissionToolCall): string {
  return `${toolCall.kind ?? 'other'}\u0000${toolCall.title ?? ''}`;
}

function describeInput(toolCall: PermissionToolCall): string | undefined {
  const input = toolCall.rawInput;
  if (input === undefined || input === null) return toolCall.kind ? `Kind: ${toolCall.kind}` : undefined;
  if (typeof input === 'object' && typeof (input as { command?: unknown }).command === 'string') {
    return `Command: ${(input as { command: string }).command}`;
  }
  const text = JSON.stringify(input, null, 2);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
