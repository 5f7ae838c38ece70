// The policy's types: rules, the shell analysis of a command line, and the decision.

export type Verdict = 'allow' | 'prompt' | 'deny';

/** Who let the command run: the rules, the user (for this call, the session, or for good), the sandbox. */
export type DecidedBy = 'rule' | 'user-once' | 'user-session' | 'user-always' | 'sandbox';

/** One rule of `agentBash.patterns` (oh-my-pi's `bash.patterns` shape). */
export interface PolicyRule {
  match: string;
  approval: Verdict;
  /** When true, an output redirection to a file does not turn this rule's allow into prompt. */
  allowRedirects?: boolean;
  /**
   * When true, `match` is one command's words without wildcards (exactRule.ts): the rule matches a
   * command with exactly those words and no other.
   */
  exact?: boolean;
}

/**
 * Where a rule comes from. Rules are read per layer (never VS Code's merged value); in every layer
 * and across layers deny beats prompt beats allow, whatever the order (docs/ARCHITECTURE.md, Policy).
 */
export type RuleLayerName = 'builtin' | 'managed' | 'user' | 'workspace' | 'folder' | 'file';

/** One layer of rules in force, with where it was read from (a settings scope or a file path). */
export interface RuleLayer {
  layer: RuleLayerName;
  /** What a person reads as the origin: `user settings`, a file path, `built-in read-only list`. */
  source: string;
  rules: PolicyRule[];
  /**
   * Set when the layer's source exists but could not be used (the managed file unreadable or
   * invalid): `rules` is then empty and every command asks at least, with this text as the reason.
   */
  problem?: string;
}

export interface Redirect {
  /** The operator as written: `>`, `>>`, `&>`, `&>>`, `>|`, `<`, `<<`, `<<<`, `>&`, … */
  op: string;
  /** The file descriptor written before the operator, if any (`2` in `2>file`). */
  fd?: string;
  /** Static text of the target (`file`, `&1`, `/dev/null`), or undefined when it is dynamic. */
  target?: string;
  /** Source text of a static target that holds expansion syntax (`> ~/x`, `< *.txt`): bash's expansion is judged. */
  targetRaw?: string;
}

/** One simple command found anywhere in the command line (also inside `$( )`, bodies, `bash -c`…). */
export interface Segment {
  /** Normalised text the globs match against: argv joined by single spaces, wrappers stripped. */
  text: string;
  /** Static argv after normalisation (argv0 basename, unquoted, wrappers stripped). */
  argv: string[];
  /** Leading `NAME=value` assignments as written. */
  assignments: string[];
  redirects: Redirect[];
  /** True when this command reads a pipe (it is not the first stage of a pipeline). */
  consumesPipe: boolean;
  /** True when it runs code the analysis cannot see (`xargs`, `find -exec`, `python -c`, …). */
  opaque: boolean;
  /** True when argv0 or an argument that matters could not be read statically. */
  dynamic: boolean;
  /**
   * Range of the segment in the original command as JavaScript string (UTF-16) indices, so
   * `command.slice(start, end)` is its text. A segment found inside a re-parsed payload (`bash -c`,
   * `eval`, a here-doc fed to a shell) carries the range of the command that holds the payload.
   */
  start: number;
  end: number;
  /** The original source text of the segment. */
  source: string;
  /** Wrapper words stripped in front of argv, as written (`sudo -u x`, `env A=1`, `timeout 5`). */
  prefix?: string[];
  /** A wrapper that changes who, where or how the program runs was stripped (`sudo`, `chroot`, `env -C`): allow rules must name it. */
  privileged?: boolean;
  /** Option values naming directories the program works in (`git -C DIR`): checked like path operands. */
  optionPaths?: string[];
  /** Indexes into argv of the words that were not static (`$f`, `$(…)`). */
  dynamicArgs?: number[];
  /** Why the segment is opaque, when it is. */
  opaqueReason?: string;
  /**
   * Index-aligned with argv: the source text of each static word that holds expansion syntax
   * (tilde, brace, glob), null for the others; absent when no word does (wordExpansion.ts).
   */
  argvRaw?: Array<string | null>;
  /**
   * After expansion (segmentExpansion.ts): indexes into argv of the fields a pathname pattern made.
   * bash read directories to make them, so they are judged as paths whatever the program does with
   * them (`echo ~/.ssh/*` lists a folder outside as surely as `ls ~/.ssh`).
   */
  globbedArgs?: number[];
  /**
   * The command-name words as written (each stripped wrapper's, then the program's), unquoted but
   * not reduced to a basename, with their source when it holds expansion syntax; absent when every
   * name is a bare name (programIdentity.ts).
   */
  names?: Array<{ text: string; raw?: string }>;
}

export interface ShellAnalysis {
  command: string;
  segments: Segment[];
  /** Fail-closed flag: parse error, ERROR/MISSING nodes, dynamic argv0, or zero commands. */
  uncertain: boolean;
  uncertainReason?: string;
  /** A construct outside the whitelist the policy may auto-approve: the command is at most prompt. */
  construct?: string;
}

export interface ShellAnalyzer {
  analyze(command: string): ShellAnalysis;
}

export type DecisionKind =
  | 'rule'
  | 'critical'
  | 'uncertain'
  | 'opaque'
  | 'redirect'
  | 'external_directory'
  | 'default'
  /** A rule layer could not be read (RuleLayer.problem): every command asks until it is fixed. */
  | 'unreadable_rules';

/** A rule that matched some text of the command, with where it comes from. */
export interface MatchedRule {
  rule: PolicyRule;
  layer?: RuleLayerName;
  layerSource?: string;
  /** The text it matched (a segment, the segment as written, the whole line). */
  text: string;
}

/**
 * Stable codes of the checks a decision runs, in the order they run (`explain --trace`). Segment
 * checks: the rule lookup, then the floors that can raise an allow; line checks after every segment.
 */
export type CheckCode =
  | 'rule'
  | 'critical_pattern'
  | 'opaque'
  | 'expansion'
  | 'expanded_words'
  | 'protected_write'
  | 'workspace_scope'
  | 'program_identity'
  | 'nested_repository'
  | 'package_config'
  | 'symlink_walk'
  | 'redirect'
  | 'line_rule'
  | 'shell_construct'
  | 'analysis'
  | 'invisible_characters';

/** One check that ran (or was skipped, and why) for a segment or for the whole line. */
export interface CheckTrace {
  check: CheckCode;
  /** `pass`: it found nothing; `ask`/`deny`: what it raised the decision to; `skip`: it did not run. */
  result: 'pass' | 'ask' | 'deny' | 'skip';
  /** The rule that matched, the finding's reason, or why the check was skipped. */
  detail?: string;
  /** The directory the words were judged in, when a segment may run in more than one. */
  cwd?: string;
}

export interface SegmentDecision {
  segment: Segment;
  decision: Verdict;
  rule: PolicyRule | null;
  /** The layer of `rule` and where it was read, when a rule matched. */
  layer?: RuleLayerName;
  layerSource?: string;
  /** What decided this command of the line, and the policy's reason for it (REASON's texts). */
  kind?: DecisionKind;
  reason?: string;
  /** Every check this segment went through, when the decision was asked for a trace. */
  trace?: CheckTrace[];
}

export interface PolicyDecision {
  decision: Verdict;
  /** The rule that fired, or null when no rule decided (default, uncertain, critical). */
  rule: PolicyRule | null;
  /** The layer of `rule`, when a rule decided. */
  layer?: RuleLayerName;
  /** Where that layer was read from (`RuleLayer.source`). */
  layerSource?: string;
  kind: DecisionKind;
  /** 1-based index of the segment that decided, when one did. */
  segmentIndex?: number;
  /** One line for people: "`rm -rf build` in segment 2 matched deny rule `rm -rf *`". */
  reason: string;
  segments: SegmentDecision[];
  uncertain: boolean;
  /**
   * Every deny and prompt rule that matched any text of the command (the deciding one included), in
   * the order they were met; absent when none did. Said by Explain, Manage Rules' Try box and History.
   */
  restrictive?: MatchedRule[];
  /** The checks of the whole line, when the decision was asked for a trace (each segment has its own). */
  trace?: CheckTrace[];
}
