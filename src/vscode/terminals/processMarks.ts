// Environment marks on every process Agent Bash starts. Descendants inherit them — also those that
// leave their process group and are re-parented to init — so releasing a terminal or ending the
// session can find and kill everything it started (see processesWithEnv).

/** Value: the extension session id. On every process: bridge terminals, shells, PTYs, ACP agents. */
export const SESSION_ENV = 'AGENT_BASH_SESSION';
/** Value: the terminal id. On a bridge terminal's process tree. */
export const TERMINAL_ENV = 'AGENT_BASH_TERMINAL';
