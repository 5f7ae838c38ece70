// Rules offered by "Always allow…": one per segment, as broad as the command's own structure
// suggests (`npm run test` → `npm run test *`, `git status` → `git status *`, `ls -la` → `ls *`) and
// never a blanket rule for a head that can do anything: destructive verbs, wrappers, shells and
// interpreters get the exact command instead. Opaque or uncertain commands get no rule, because no
// rule could make them run unasked anyway.
import type { PolicyRule, Segment, ShellAnalysis } from '../policyContracts';
import { escapeGlob, normalizeCommandText } from './ruleGlob';
import { SHELLS } from '../programs/runners';
import { segmentExactText } from './exactRule';

/** How many leading words name the command for tools with subcommands. */
const ARITY: Readonly<Record<string, number>> = {
  git: 2, npm: 2, pnpm: 2, yarn: 2, bun: 2, cargo: 2, go: 2, docker: 2, podman: 2, kubectl: 2,
  make: 2, pip: 2, pip3: 2, poetry: 2, uv: 2, dotnet: 2, mvn: 2, gradle: 2, brew: 2, apt: 2,
  'apt-get': 2, terraform: 2, helm: 2, rustup: 2, conda: 2, systemctl: 2, gh: 3, aws: 3, az: 3, gcloud: 3,
};

/** Subcommands that take one more word (`npm run <script>`, `docker compose <cmd>`). */
const DEEPER: ReadonlySet<string> = new Set([
  'npm run', 'pnpm run', 'yarn run', 'bun run', 'npm exec', 'docker compose', 'podman compose',
  'go mod', 'cargo add', 'git stash', 'git remote', 'git worktree', 'git submodule',
]);

/** Heads for which `head *` would approve anything: only the exact command is offered. */
const DANGEROUS_HEADS: ReadonlySet<string> = new Set([
  'rm', 'rmdir', 'shred', 'truncate', 'dd', 'mkfs', 'mv', 'cp', 'ln', 'tee', 'sed', 'awk', 'chmod', 'chown', 'chgrp',
  'kill', 'pkill', 'killall', 'sudo', 'doas', 'su', 'env', 'command', 'builtin', 'exec', 'eval', 'source', '.',
  'nohup', 'nice', 'time', 'timeout', 'stdbuf', 'setsid', 'ionice', 'busybox', 'xargs', 'parallel', 'watch',
  'find', 'fd', 'trap', 'alias', 'curl', 'wget', 'ssh', 'scp', 'rsync', 'npx', 'pnpx', 'bunx', 'node', 'nodejs',
  'deno', 'perl', 'ruby', 'php', 'lua', 'luajit', 'Rscript', 'osascript', 'pwsh', 'powershell', 'tclsh',
]);

/** Subcommands that destroy work: exact only. */
const DANGEROUS_SUBCOMMANDS: ReadonlySet<string> = new Set([
  'git clean', 'git reset', 'git push', 'git rm', 'git checkout', 'git restore', 'git rebase', 'git filter-branch',
  'docker rm', 'docker rmi', 'docker system', 'kubectl delete', 'terraform destroy', 'terraform apply',
]);

function isDangerousHead(head: string): boolean {
  return DANGEROUS_HEADS.has(head) || SHELLS.has(head) || /^(python|pypy|perl|ruby|php|lua)[0-9.]*$/.test(head);
}

/** The words that name the command, or undefined when only the exact command is safe to offer. */
function commandPrefix(argv: readonly string[]): string[] | undefined {
  const head = argv[0];
  if (isDangerousHead(head)) return undefined;
  let arity = (Object.hasOwn(ARITY, head) ? ARITY[head] : undefined) ?? 1;
  const words: string[] = [head];
  for (let i = 1; i < argv.length && words.length < arity; i++) {
    const w = argv[i];
    // An option before the subcommand (`git -C dir status`) hides the structure: be exact.
    if (w.startsWith('-') || w === '') return undefined;
    words.push(w);
    if (words.length === 2 && DEEPER.has(words.join(' '))) arity = 3;
    if (words.length === 2 && DANGEROUS_SUBCOMMANDS.has(words.join(' '))) return undefined;
  }
  return words.length === arity ? words : undefined;
}

function proposalFor(seg: Segment): string | undefined {
  if (seg.opaque || seg.argv.length === 0) return undefined;
  const prefix = seg.privileged ? undefined : commandPrefix(seg.argv);
  if (prefix) return `${prefix.map(escapeGlob).join(' ')} *`;
  return exactProposalFor(seg);
}

/** The rule that allows exactly this segment (its wrappers named when they matter), if one can. */
export function exactProposalFor(seg: Segment): string | undefined {
  if (seg.opaque || seg.argv.length === 0) return undefined;
  // A dynamic word in an exact rule would only match its own source text: offer nothing.
  if (seg.dynamic) return undefined;
  const exactWords = seg.privileged ? [...(seg.prefix ?? []), ...seg.argv] : seg.argv;
  return escapeGlob(normalizeCommandText(exactWords.join(' ')));
}

/**
 * "Allow this exact command" for one segment: an exact rule (exactRule.ts) with the segment's words,
 * its wrappers named when they matter; undefined when a word is not static text (no exact spelling).
 */
export function exactRuleFor(seg: Segment): PolicyRule | undefined {
  if (seg.opaque) return undefined;
  const text = seg.privileged ? segmentExactText(seg, seg.prefix) : segmentExactText(seg);
  return text === undefined ? undefined : { match: text, approval: 'allow', exact: true };
}

/**
 * The words an edited "commands like…" pattern must keep literally at its start: the program and
 * its subcommand as the proposal names them (at most two words), so an edit can narrow the
 * proposal but never widen it past them.
 */
export function proposalStem(match: string): string[] {
  const words = match.replace(/ \*$/, '').split(' ');
  return words.slice(0, Math.min(2, words.length));
}

/** The rule offered for one segment, or undefined when none is (see proposeRules). */
export function proposalForSegment(seg: Segment): PolicyRule | undefined {
  const match = proposalFor(seg);
  return match === undefined ? undefined : { match, approval: 'allow' };
}

export function proposeRules(analysis: ShellAnalysis): PolicyRule[] {
  if (analysis.uncertain) return [];
  const seen = new Set<string>();
  const rules: PolicyRule[] = [];
  for (const seg of analysis.segments) {
    const match = proposalFor(seg);
    if (match === undefined || seen.has(match)) continue;
    seen.add(match);
    rules.push({ match, approval: 'allow' });
  }
  return rules;
}
