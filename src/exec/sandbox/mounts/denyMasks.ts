// Deny rules that name a whole program (`rm *`, `curl *`, `rm`) hold inside the sandbox too: each
// file that program is found as (PATH and the usual system folders, symlinks resolved) has a stand-in
// mounted over it that prints the refusal and exits 126, so `find -exec rm`, `sed e`, an npm script
// or a here-doc'd shell cannot run it either. Rules with arguments (`git push *`) stay the policy's.
import { chmodSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { PolicyRule } from '../../../core/policy/policyContracts';

/** Folders looked in besides PATH. */
export const SYSTEM_BIN_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/**
 * Programs the sandbox itself needs to start a command (its shell, the network bridge): a rule
 * denying them stays the policy's job, or no command could run at all.
 */
export const NEVER_MASKED: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'fish', 'ksh', 'socat', 'sleep', 'env']);

/** Multi-call binaries: masking one would mask every program it is. */
const MULTI_CALL: ReadonlySet<string> = new Set(['busybox', 'toybox', 'coreutils']);

export interface MaskedProgram {
  program: string;
  /** The rule's text (`rm *`). */
  rule: string;
}

const PROGRAM_RULE = /^([A-Za-z0-9_][A-Za-z0-9._+-]*)( \*)?$/;

/** The programs that deny rules name whole: `NAME` or `NAME *`, approval deny. */
export function programsDeniedByRules(rules: readonly PolicyRule[]): MaskedProgram[] {
  const out = new Map<string, MaskedProgram>();
  for (const rule of rules) {
    if (rule.approval !== 'deny') continue;
    const m = PROGRAM_RULE.exec(rule.match.trim());
    if (!m || out.has(m[1])) continue;
    out.set(m[1], { program: m[1], rule: rule.match.trim() });
  }
  return [...out.values()];
}

/** The line the stand-in prints. */
export function maskRefusal(p: MaskedProgram): string {
  return `agent-bash: \`${p.program}\` is denied by rule \`${p.rule}\``;
}

export interface MaskPlan {
  masks: Array<{ path: string; source: string }>;
  skipped: string[];
}

/**
 * The stand-ins (written once into `dir`, which sandboxed commands cannot write) and the real files
 * to mount them over.
 */
export function planMasks(programs: readonly MaskedProgram[], pathValue: string, dir: string): MaskPlan {
  const plan: MaskPlan = { masks: [], skipped: [] };
  if (programs.length === 0) return plan;
  const dirs = [...new Set([...pathValue.split(':').filter((d) => path.isAbsolute(d)), ...SYSTEM_BIN_DIRS])];
  const seen = new Set<string>();
  for (const p of programs) {
    if (NEVER_MASKED.has(p.program)) {
      plan.skipped.push(`${p.program}: the sandbox needs it to run commands; the rule \`${p.rule}\` is applied by the policy only`);
      continue;
    }
    let source: string | undefined;
    for (const bin of dirs) {
      let real: string;
      try {
        real = realpathSync(path.join(bin, p.program));
        if (!statSync(real).isFile()) continue;
      } catch {
        continue;
      }
      if (MULTI_CALL.has(path.basename(real))) {
        plan.skipped.push(`${path.join(bin, p.program)}: it is ${real}, which is many programs; not masked`);
        continue;
      }
      if (seen.has(real)) continue;
      seen.add(real);
      source ??= standIn(p, dir);
      plan.masks.push({ path: real, source });
    }
  }
  return plan;
}

function standIn(p: MaskedProgram, dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const file = path.join(dir, p.program);
  const quoted = `'${maskRefusal(p).replace(/'/g, `'\\''`)}'`;
  const text = `#!/bin/sh\nprintf '%s\\n' ${quoted} >&2\nexit 126\n`;
  try {
    if (readFileSync(file, 'utf8') === text) return file;
  } catch {
    // Not written yet.
  }
  // Read-only once written: a new text goes in beside it and is renamed over it.
  const next = `${file}.${process.pid}.new`;
  writeFileSync(next, text, { mode: 0o555 });
  chmodSync(next, 0o555);
  renameSync(next, file);
  return file;
}
