// Programs that run other code in ways not read word by word: runners (their arguments or text as a
// command), shells and interpreters (with the options that hand them program text). The analysis
// (shellNormalize.ts) makes such a segment opaque; the rule proposals and critical checks read them too.
/**
 * Programs that run their arguments (or text) as a command in ways not modelled word by word:
 * the segment is opaque, and deny rules are also tried on every tail of its argv (best effort).
 */
export const RUNNERS: ReadonlySet<string> = new Set([
  'xargs', 'parallel', 'sem', 'watch', 'coproc', 'fc', 'script', 'at', 'batch', 'su', 'runuser', 'sg', 'newgrp',
  'ssh', 'strace', 'ltrace', 'valgrind', 'gdb', 'lldb', 'firejail', 'nsenter', 'unshare', 'systemd-run', 'xvfb-run',
  'dbus-launch', 'dbus-run-session', 'torsocks', 'proxychains', 'proxychains4', 'tsocks', 'rlwrap', 'flatpak-spawn',
  'bwrap', 'proot', 'setpriv', 'setarch', 'linux32', 'linux64', 'capsh', 'prlimit', 'numactl', 'cpulimit', 'chpst',
  'daemonize', 'start-stop-daemon', 'schroot', 'machinectl', 'tini', 'dumb-init', 'run-one', 'expect', 'entr',
  'tmux', 'screen', 'dtach', 'abduco', 'time-limit', 'timelimit', 'sandbox-exec', 'caffeinate', 'sshpass',
  'nohup-run', 'doas-run', 'ip', 'vim', 'vi', 'nvim', 'emacs', 'ex', 'ed',
]);

export const SHELLS: ReadonlySet<string> = new Set([
  'sh', 'bash', 'rbash', 'zsh', 'dash', 'ksh', 'mksh', 'pdksh', 'ash', 'yash', 'posh', 'fish', 'tcsh', 'csh',
]);

/** Interpreters and the options that hand them program text on the command line. */
/**
 * `infoFlags`: options that print a version or help text and exit, so the interpreter reads no
 * program when they are its only words (`node --version`).
 */
export const INTERPRETERS: ReadonlyArray<{ name: RegExp; codeFlags: readonly string[]; infoFlags?: readonly string[] }> = [
  { name: /^python[0-9.]*$/, codeFlags: ['-c'], infoFlags: ['-V', '-VV', '--version', '-h', '--help'] },
  { name: /^pypy[0-9.]*$/, codeFlags: ['-c'], infoFlags: ['-V', '--version', '-h', '--help'] },
  { name: /^perl[0-9.]*$/, codeFlags: ['-e', '-E'], infoFlags: ['-v', '-V', '-h'] },
  { name: /^ruby[0-9.]*$/, codeFlags: ['-e'], infoFlags: ['--version', '-h', '--help'] },
  { name: /^(node|nodejs)$/, codeFlags: ['-e', '--eval', '-p', '--print'], infoFlags: ['-v', '--version', '-h', '--help', '--v8-options'] },
  { name: /^bun$/, codeFlags: ['-e', '--eval', '-p', '--print'], infoFlags: ['-v', '--version', '-h', '--help'] },
  { name: /^php[0-9.]*$/, codeFlags: ['-r'], infoFlags: ['-v', '--version', '-h', '--help'] },
  { name: /^(lua|luajit)[0-9.]*$/, codeFlags: ['-e'] },
  { name: /^Rscript$/, codeFlags: ['-e'] },
  { name: /^osascript$/, codeFlags: ['-e'] },
  { name: /^(pwsh|powershell)$/, codeFlags: ['-c', '-command', '-encodedcommand', '-e', '-ec'] },
  { name: /^(tclsh|wish)$/, codeFlags: [] },
];
