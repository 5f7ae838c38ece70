// Pipeline stage 5 (docs/ARCHITECTURE.md, Pipeline): the interceptor nudges the model from shell
// commands to dedicated tools (`cat` → `read`, …). It is a convenience, not a security boundary (the
// policy is): off by default, a rule applies only when its tool exists, and a blocked command sent again
// unchanged runs, so a model cannot loop.
import type { InterceptorRule, ShellAnalysis } from './contracts';

/** oh-my-pi's `DEFAULT_BASH_INTERCEPTOR_RULES` (v17.2.8), in order; regex sources kept verbatim. */
export const DEFAULT_INTERCEPTOR_RULES: readonly InterceptorRule[] = Object.freeze([
  {
    pattern: /^\s*(cat|head|tail|less|more)\s+/.source,
    tool: 'read',
    message: 'Use the `read` tool instead of cat/head/tail. It provides better context and handles binary files.',
  },
  {
    pattern: /^\s*(grep|rg|ripgrep|ag|ack)\s+/.source,
    tool: 'grep',
    message: 'Use the `grep` tool instead of grep/rg. It respects .gitignore and provides structured output.',
  },
  {
    pattern: /^\s*(find|fd|locate)\s+.*(-name|-iname|-type|--type|-glob)/.source,
    tool: 'glob',
    message: 'Use the `glob` tool instead of find/fd. It respects .gitignore and is faster for glob patterns.',
  },
  {
    pattern: /^\s*sed\s+(-i|--in-place)/.source,
    tool: 'edit',
    message: 'Use the `edit` tool instead of sed -i. It provides diff preview and fuzzy matching.',
  },
  {
    pattern: /^\s*perl\s+.*-[pn]?i/.source,
    tool: 'edit',
    message: 'Use the `edit` tool instead of perl -i. It provides diff preview and fuzzy matching.',
  },
  {
    pattern: /^\s*awk\s+.*-i\s+inplace/.source,
    tool: 'edit',
    message: 'Use the `edit` tool instead of awk -i inplace. It provides diff preview and fuzzy matching.',
  },
  {
    pattern:
      /^\s*(echo|printf|cat\s*<<)\s+(?:(?:[^"'>]|"[^"]*"|'[^']*')|(?<!\|)>{1,2}\|?\s*(?:"\/dev\/(?:null|tty|stdout|stderr)"|'\/dev\/(?:null|tty|stdout|stderr)'|\/dev\/(?:null|tty|stdout|stderr))(?:[\s;&|]|$))*(?<!\|)>{1,2}\|?\s*(?!(?:"\/dev\/(?:null|tty|stdout|stderr)"|'\/dev\/(?:null|tty|stdout|stderr)'|\/dev\/(?:null|tty|stdout|stderr))(?:[\s;&|]|$))[$\w./~"'-]/
        .source,
    tool: 'write',
    message: 'Use the `write` tool instead of echo/cat redirection. It handles encoding and provides confirmation.',
  },
  {
    pattern: /^\s*nohup\s+|(?<!&)&\s*$/.source,
    tool: 'hub',
    message:
      'Use the `hub` tool (`op:"start"`) instead of nohup or background shell syntax so the process stays observable and managed.',
  },
  {
    pattern:
      /^\s*(?:(?:bun|npm|pnpm|yarn)\s+(?:run\s+)?(?:dev|start)(?:\s|$)|(?:vite|next\s+dev|nuxt\s+dev|nodemon|lldb|gdb|tail\s+-f)(?:\s|$)|docker\s+compose\s+up(?!.*(?:\s-d(?:\s|$)|--detach))(?:\s|$))/
        .source,
    tool: 'hub',
    message:
      'Use the `hub` tool (`op:"start"`) for services, watchers, and debuggers so other omp instances can observe and control them.',
  },
  {
    pattern:
      /^\s*(?:(?:bun|npm|pnpm|yarn)\s+(?:run\s+)?\S+|cargo\s+watch|watchexec|pytest|vitest|jest|tsc)(?:.|\n)*(?:--watch|-w)(?:\s|$)/
        .source,
    tool: 'hub',
    message: 'Use the `hub` tool (`op:"start"`) for watch mode so its output, input, and lifecycle stay managed.',
  },
]);

/** Used when a rule has an empty message. */
export const BLOCK_FALLBACK_MESSAGE = 'Command blocked';
/** Tells the model how the escape hatch works, so it never loops on a block it disagrees with. */
export const INTERCEPTOR_RETRY_NOTE =
  'If the shell command really is what you need, send exactly the same command again: it will run this time.';

/** `Blocked: <message>`, a blank line, `Original command: <raw>`, then the retry note. */
export function blockedMessage(message: string, rawCommand: string): string {
  return `Blocked: ${message || BLOCK_FALLBACK_MESSAGE}\n\nOriginal command: ${rawCommand}\n\n${INTERCEPTOR_RETRY_NOTE}`;
}

export interface InterceptorHit {
  rule: InterceptorRule;
  /** The candidate text the rule matched. */
  candidate: string;
}

const compiled = new Map<string, RegExp | null>();

/** Compiles once per pattern+flags; an invalid regex is remembered as null and skipped. */
function compile(rule: InterceptorRule): RegExp | null {
  const key = `${rule.flags ?? ''}/${rule.pattern}`;
  let re = compiled.get(key);
  if (re === undefined) {
    try {
      re = new RegExp(rule.pattern, rule.flags ?? '');
    } catch {
      re = null;
    }
    compiled.set(key, re);
  }
  return re;
}

/** True when segment `inner` lies inside another segment's text (e.g. the `cat` in `echo $(cat f)`). */
function isNested(inner: ShellAnalysis['segments'][number], all: ShellAnalysis['segments']): boolean {
  return all.some(
    (outer) =>
      outer !== inner &&
      outer.start <= inner.start &&
      outer.end >= inner.end &&
      outer.end - outer.start > inner.end - inner.start,
  );
}

/**
 * The texts rules are tried against, in order: the whole command; each top-level segment as written
 * (pipe consumers excluded, v18: `… | grep x` reads a pipe, it does not search files); then each of
 * those without its leading `NAME=value` words. Segments come from the shell analysis only.
 * Commands nested in substitutions are left to the whole-command candidate, as in oh-my-pi.
 */
export function interceptionCandidates(command: string, analysis: ShellAnalysis): string[] {
  const out: string[] = [];
  const add = (text: string) => {
    const t = text.trim();
    if (t !== '' && !out.includes(t)) out.push(t);
  };
  add(command);
  const segments = analysis.segments.filter(
    (s) => !s.consumesPipe && command.slice(s.start, s.end) === s.source && !isNested(s, analysis.segments),
  );
  for (const seg of segments) add(seg.source);
  for (const seg of segments) {
    if (seg.assignments.length === 0) continue;
    let rest = seg.source.trimStart();
    let removed = 0;
    for (const assignment of seg.assignments) {
      if (!rest.startsWith(assignment)) break;
      rest = rest.slice(assignment.length).trimStart();
      removed++;
    }
    if (removed > 0) add(rest);
  }
  return out;
}

/** Rules in order, candidates in order; the first hit wins. Rules whose tool is unavailable are skipped. */
export function findInterception(
  command: string,
  analysis: ShellAnalysis,
  rules: readonly InterceptorRule[],
  toolAvailable: (tool: string) => boolean,
): InterceptorHit | undefined {
  const candidates = interceptionCandidates(command, analysis);
  for (const rule of rules) {
    if (!toolAvailable(rule.tool)) continue;
    const re = compile(rule);
    if (!re) continue;
    for (const candidate of candidates) {
      re.lastIndex = 0; // g/y flags keep state between tests
      if (re.test(candidate)) return { rule, candidate };
    }
  }
  return undefined;
}

/** How many blocked commands each session remembers for the escape hatch. */
export const RETRY_MEMORY_PER_SESSION = 200;

export interface InterceptorCheck {
  /** The command as the model sent it (quoted in the message; the escape-hatch key). */
  raw: string;
  /** The texts to check, each with its analysis: the raw command, then the cd-stripped one. */
  commands: Array<{ command: string; analysis: ShellAnalysis }>;
  rules: readonly InterceptorRule[];
  toolAvailable: (tool: string) => boolean;
  sessionKey: string;
}

/** Holds the per-session memory of blocked commands. */
export class Interceptor {
  private readonly blocked = new Map<string, Set<string>>();

  /** The block message, or undefined when the command may run. */
  check(req: InterceptorCheck): string | undefined {
    const seen = this.blocked.get(req.sessionKey);
    if (seen?.has(req.raw)) return undefined;
    for (const { command, analysis } of req.commands) {
      const hit = findInterception(command, analysis, req.rules, req.toolAvailable);
      if (hit) {
        this.remember(req.sessionKey, req.raw);
        return blockedMessage(hit.rule.message, req.raw);
      }
    }
    return undefined;
  }

  private remember(sessionKey: string, raw: string): void {
    let seen = this.blocked.get(sessionKey);
    if (!seen) this.blocked.set(sessionKey, (seen = new Set()));
    seen.add(raw);
    // Oldest first: a Set iterates in insertion order.
    if (seen.size > RETRY_MEMORY_PER_SESSION) seen.delete(seen.values().next().value as string);
  }
}
