// Programs that run the command after their options (`env`, `sudo`, `timeout`, `nice`…): the options
// each takes, so the analysis can strip them and judge the command they run (shellNormalize.ts), and
// the ones it refuses to model or that an allow rule must name.
export interface WrapperSpec {
  /** Short options without an argument. */
  flags: string;
  /** Short options that take an argument (attached or next word). */
  argFlags: string;
  long?: readonly string[];
  longArg?: readonly string[];
  /** Words consumed after the options (`timeout`'s duration). */
  positional?: number;
  /** `env`: `NAME=value` words before the command. */
  assignments?: boolean;
  /** `nice -10`. */
  numericFlag?: boolean;
  /** Options that mean "this is not running a command" (`command -v`): stop stripping. */
  notWrapper?: string;
  /** Options whose meaning we refuse to model (`env -S`, `sudo -e`): the segment becomes opaque. */
  opaque?: string;
  longOpaque?: readonly string[];
  privileged?: boolean;
  /** Options that change where or how the program runs (`env -C`): an allow rule must name the wrapper. */
  named?: string;
  longNamed?: readonly string[];
}

export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: {
    flags: '0iv',
    argFlags: 'uC',
    long: ['ignore-environment', 'null', 'debug'],
    longArg: ['unset', 'chdir'],
    assignments: true,
    opaque: 'S',
    longOpaque: ['split-string'],
    named: 'C',
    longNamed: ['chdir'],
  },
  command: { flags: 'p', argFlags: '', notWrapper: 'vV' },
  builtin: { flags: '', argFlags: '' },
  exec: { flags: 'cl', argFlags: 'a' },
  nice: { flags: '', argFlags: 'n', longArg: ['adjustment'], numericFlag: true },
  nohup: { flags: '', argFlags: '' },
  time: {
    flags: 'pvaq',
    argFlags: 'fo',
    long: ['portability', 'verbose', 'append', 'quiet'],
    longArg: ['format', 'output'],
    // bash's `time` is a keyword: `time PATH=. ls` runs `ls` with that PATH.
    assignments: true,
    named: 'fo',
    longNamed: ['format', 'output'],
  },
  timeout: {
    flags: 'v',
    argFlags: 'sk',
    long: ['preserve-status', 'foreground', 'verbose'],
    longArg: ['signal', 'kill-after'],
    positional: 1,
  },
  sudo: {
    flags: 'AbEHKknPSisB',
    argFlags: 'ughpCrtTUDR',
    long: [
      'askpass', 'background', 'preserve-env', 'set-home', 'login', 'remove-timestamp',
      'reset-timestamp', 'non-interactive', 'preserve-groups', 'stdin', 'shell', 'bell',
    ],
    longArg: ['user', 'group', 'prompt', 'close-from', 'role', 'type', 'command-timeout', 'other-user', 'chdir', 'chroot', 'host'],
    notWrapper: 'lvV',
    opaque: 'e',
    longOpaque: ['edit'],
    privileged: true,
  },
  doas: { flags: 'ns', argFlags: 'u', opaque: 'C', privileged: true },
  stdbuf: { flags: '', argFlags: 'ioe', longArg: ['input', 'output', 'error'] },
  setsid: { flags: 'cfw', argFlags: '', long: ['ctty', 'fork', 'wait'] },
  ionice: { flags: 't', argFlags: 'cn', longArg: ['class', 'classdata'], notWrapper: 'pPu' },
  busybox: { flags: '', argFlags: '', privileged: true },
  toybox: { flags: '', argFlags: '', privileged: true },
  chroot: { flags: '', argFlags: '', longArg: ['userspec', 'groups'], long: ['skip-chdir'], positional: 1, privileged: true },
  pkexec: { flags: '', argFlags: '', long: ['disable-internal-agent', 'keep-cwd'], longArg: ['user'], privileged: true },
  chrt: {
    flags: 'abdfiorRv',
    argFlags: 'TPD',
    long: ['all-tasks', 'batch', 'deadline', 'fifo', 'idle', 'other', 'rr', 'reset-on-fork', 'verbose'],
    longArg: ['sched-runtime', 'sched-period', 'sched-deadline'],
    notWrapper: 'pm',
    positional: 1,
    privileged: true,
  },
  taskset: { flags: 'acv', argFlags: '', long: ['all-tasks', 'cpu-list', 'verbose'], notWrapper: 'p', positional: 1, privileged: true },
  flock: {
    flags: 'sxenuoFv',
    argFlags: 'wE',
    long: ['shared', 'exclusive', 'nonblock', 'unlock', 'close', 'no-fork', 'verbose'],
    longArg: ['timeout', 'wait', 'conflict-exit-code'],
    opaque: 'c',
    longOpaque: ['command'],
    positional: 1,
    privileged: true,
  },
  fakeroot: { flags: 'u', argFlags: 'lsib', long: ['unknown-is-real'], longArg: ['lib', 'faked'], privileged: true },
  unbuffer: { flags: 'p', argFlags: '' },
  catchsegv: { flags: '', argFlags: '' },
  eatmydata: { flags: '', argFlags: '' },
  nocache: { flags: '', argFlags: '' },
};
