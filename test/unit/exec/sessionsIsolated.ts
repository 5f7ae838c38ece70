// Whether a sandboxed bash session runs each command in a subshell of its shell here
// (persistentShell.ts `evalText`): where the sandbox and the fence's builtin both are. There, what a
// command does to bash itself (`exit`, `exec >/dev/null`, `enable -n`) ends with the command, not
// with the session.
import { fenceSupport } from '../../../src/exec/sandbox/readOnly/readOnlySupport';
import { probeSandbox } from '../../../src/exec/sandbox/sandboxProbe';

export function sessionsIsolated(): boolean {
  return probeSandbox().sandbox && fenceSupport('sandboxed').enforced;
}
