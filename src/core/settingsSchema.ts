// The one schema of the `agentBash.*` settings: `npm run gen:settings` writes it into package.json's
// `contributes.configuration` (the Settings UI), and the types and defaults below are read from it by
// the settings readers (vscode/settings/settings.ts) and the command line (cli/run.ts). A unit test
// fails when package.json and this file drift apart. No `vscode` import: data only.

export const SETTINGS_TITLE = 'Agent Bash';

export const SETTINGS_PROPERTIES = {
  'agentBash.builtinRules': {
    type: 'boolean',
    default: true,
    markdownDescription: "Apply Agent Bash's built-in read-only list (allow rules for programs that only read, such as `ls`, `cat` and `wc`, kept read-only by the policy's option and workspace checks). It is one layer of the rules in force, beside the managed file and the `#agentBash.patterns#` of user, workspace and folder settings: a deny or prompt rule of any layer still wins over it.",
    order: 2,
  },
  'agentBash.patterns': {
    type: 'array',
    default: [],
    scope: 'resource',
    markdownDescription: 'Policy rules: `{ "match": "<glob>", "approval": "allow" | "prompt" | "deny", "allowRedirects"?: true, "exact"?: true }`. `*` matches any run of characters (spaces and `/` included); with `"exact": true` the match is one command\'s words with no wildcards (quote them as the shell would: `touch \'a b\'`) and matches only that command. The rules of user, workspace and folder settings, the managed file and the built-in list all apply together: in any order, within a scope and across them, deny beats prompt beats allow, so no rule can relax a deny. A compound command is allowed only when every part is allowed; with no matching rule a command asks first. [Manage Rules](command:agentBash.manageRules) lists the rules of every layer, edits the user and workspace ones, and tries a command against them.',
    items: {
      type: 'object',
      required: ['match', 'approval'],
      additionalProperties: false,
      properties: {
        match: {
          type: 'string',
          description: 'Glob over the normalised command text.',
        },
        approval: {
          type: 'string',
          enum: ['allow', 'prompt', 'deny'],
        },
        allowRedirects: {
          type: 'boolean',
          description: 'Keep allow even when the command redirects output to a file.',
        },
        exact: {
          type: 'boolean',
          description: "The match is one command's words, quoted as the shell would, without wildcards: the rule matches that command only (not one word more).",
        },
      },
    },
    order: 1,
  },
  'agentBash.interceptor.enabled': {
    type: 'boolean',
    default: false,
    markdownDescription: 'Block shell commands that have a better tool (`cat` → read, `grep` → grep, `find` → glob…) and tell the agent which tool to use. Sending the same command again runs it.',
    order: 16,
  },
  'agentBash.interceptor.patterns': {
    type: 'array',
    default: [],
    markdownDescription: 'Extra interceptor rules `{ "pattern": "<regex>", "tool": "<tool name>", "message": "<text>" }`, checked before the built-in ones.',
    items: {
      type: 'object',
      required: ['pattern', 'tool', 'message'],
      properties: {
        pattern: {
          type: 'string',
        },
        tool: {
          type: 'string',
        },
        message: {
          type: 'string',
        },
        flags: {
          type: 'string',
        },
      },
    },
    order: 17,
  },
  'agentBash.maxTimeout': {
    type: 'number',
    default: 0,
    markdownDescription: 'Global ceiling for command timeouts in seconds (also caps the 300 s default). `0` or less: no ceiling beyond the 1–3600 s range.',
    order: 18,
  },
  'agentBash.async.enabled': {
    type: 'boolean',
    default: true,
    markdownDescription: 'Allow `async: true` (background jobs whose result is delivered later).',
    order: 21,
  },
  'agentBash.async.maxJobs': {
    type: 'number',
    default: 100,
    minimum: 1,
    description: 'Running background jobs at most; beyond it commands run in the foreground.',
    order: 22,
  },
  'agentBash.autoBackground.enabled': {
    type: 'boolean',
    default: false,
    description: 'Move a long foreground command to the background after the threshold instead of waiting.',
    order: 23,
  },
  'agentBash.autoBackground.thresholdMs': {
    type: 'number',
    default: 60000,
    minimum: 0,
    description: 'Milliseconds before a foreground command is moved to the background (capped at the timeout minus one second).',
    order: 24,
  },
  'agentBash.artifactHeadBytes': {
    type: 'number',
    default: 20,
    minimum: 0,
    markdownDescription: 'KiB of the start of the output kept inline besides the tail (`0`: tail only). The full output is always in the artifact.',
    order: 20,
  },
  'agentBash.outputMaxColumns': {
    type: 'number',
    default: 768,
    minimum: 0,
    markdownDescription: 'Bytes per line shown to the agent, only in output too long to show whole: a longer line keeps its start and its end around `…` (`0`: no cap). Output that fits is never cut. The stdio MCP server and `agent-bash run` take `--max-line-bytes N`.',
    order: 19,
  },
  'agentBash.shell.path': {
    type: 'string',
    default: '',
    markdownDescription: 'Shell for command lines. Empty: `$SHELL` when it is bash, zsh, sh, dash or ksh, else `/bin/bash`.',
    order: 25,
  },
  'agentBash.shell.args': {
    type: 'array',
    items: {
      type: 'string',
    },
    default: ['-c'],
    description: 'Arguments before the command line.',
    order: 26,
  },
  'agentBash.direnv': {
    type: 'string',
    enum: ['auto', 'off'],
    default: 'auto',
    markdownDescription: '`auto`: load the `.envrc` environment with `direnv` (when installed) before a command; `off`: never.',
    order: 27,
  },
  'agentBash.sandbox.enabled': {
    type: 'string',
    enum: ['auto', 'on', 'off'],
    enumDescriptions: [
      'Sandbox agent commands where bubblewrap and user namespaces work; elsewhere run them unsandboxed with a warning.',
      'Always sandbox; where the sandbox cannot start, refuse to run and say what to install (`apt-get install bubblewrap socat`).',
      'Never sandbox (every command still runs in its own PID namespace where possible, so nothing it starts outlives it).',
    ],
    default: 'auto',
    markdownDescription: 'Run agent commands in an OS sandbox (bubblewrap): reads everywhere except secrets (`~/.ssh`, `~/.aws`, `~/.npmrc`, …), writes only to the workspace folders, a per-session `TMPDIR` and package caches, network only to `#agentBash.sandbox.network.allowedDomains#`. Policy rules still apply: deny is always deny. Bang commands are never sandboxed.',
    order: 3,
  },
  'agentBash.sandbox.autoApprove': {
    type: 'boolean',
    default: false,
    markdownDescription: 'Run commands whose policy answer is `prompt` without asking when they run inside the sandbox. Deny rules still deny; a command that would run outside the sandbox always asks.',
    order: 4,
  },
  'agentBash.sandbox.filesystem.allowWrite': {
    type: 'array',
    items: {
      type: 'string',
    },
    default: [],
    markdownDescription: 'Extra folders sandboxed commands may write to (besides the workspace folders, `TMPDIR` and package caches). `~/` is the home folder; relative paths are relative to the first workspace folder. Inside the workspace, `.vscode`, `.git/hooks`, `.git/config`, `.idea`, `.devcontainer`, `.agent-bash`, `.mcp.json`, `.claude`, `.cursor` and `*.code-workspace` stay read-only unless listed here.',
    order: 5,
  },
  'agentBash.sandbox.filesystem.denyRead': {
    type: 'array',
    items: {
      type: 'string',
    },
    default: [],
    markdownDescription: 'Extra files or folders hidden from sandboxed commands (besides `~/.ssh`, `~/.aws`, `~/.config/gcloud`, `~/.gnupg`, `~/.netrc`, `~/.npmrc`, `~/.docker/config.json`, `~/.kube` and `.env*` files outside the workspace).',
    order: 6,
  },
  'agentBash.sandbox.filesystem.denyWrite': {
    type: 'array',
    items: {
      type: 'string',
    },
    default: [],
    markdownDescription: 'Files or folders kept read-only for sandboxed commands even inside a writable folder (e.g. `.git/hooks`).',
    order: 7,
  },
  'agentBash.sandbox.git.allowWrite': {
    type: 'boolean',
    default: false,
    markdownDescription: 'Let sandboxed commands write git metadata (`git init`, `git add`, `git commit` in the workspace). Off: every `.git` in the workspace (nested repositories, submodules and worktree pointers included) is read-only. On: each `.git` is writable but its `config`, `config.worktree`, `hooks`, `commondir`, `objects/info/alternates`, `info/attributes` and worktree pointers stay read-only, so nothing the agent writes there runs when you use git.',
    order: 9,
  },
  'agentBash.sandbox.caches.shareWithHost': {
    type: 'boolean',
    default: false,
    markdownDescription: "Let sandboxed commands write your own package caches (`~/.npm/_cacache`, `~/.cargo/registry`, `~/go/pkg/mod`, `~/.cache/go-build`, `~/.m2/repository`, `~/.gradle/caches`, pip, uv, yarn, pnpm, bun). Off: inside the sandbox each of them is a cache of the sandbox's own (in `~/.local/state/agent-bash/sandbox-caches`), so nothing a command writes there reaches the installs and builds you run yourself; the first sandboxed install downloads again. On: faster, but a command can plant a package source, build script or compiled object your own builds later use.",
    order: 10,
  },
  'agentBash.sandbox.limits.processes': {
    type: 'integer',
    default: 512,
    minimum: 0,
    markdownDescription: 'Processes and threads a sandboxed command (or persistent shell) may have at once; `0`: no limit. Enforced through a cgroup where Agent Bash may make one (root, or delegated cgroup v2 controllers); elsewhere not enforced.',
    order: 10,
  },
  'agentBash.sandbox.limits.memory': {
    type: 'integer',
    default: 4096,
    minimum: 0,
    markdownDescription: "Memory in MiB of all a sandboxed command's processes together; past it the kernel kills one and the result says so. `0`: no limit. Enforced through a cgroup where Agent Bash may make one (root, or delegated cgroup v2 controllers); elsewhere not enforced.",
    order: 11,
  },
  'agentBash.sandbox.limits.memoryMiB': {
    type: 'integer',
    default: 4096,
    minimum: 0,
    markdownDeprecationMessage: 'Renamed: use `#agentBash.sandbox.limits.memory#` (the same number of MiB). Still read while the new setting is left at its default.',
    markdownDescription: "Memory in MiB of all a sandboxed command's processes together (old name of `#agentBash.sandbox.limits.memory#`).",
    order: 13,
  },
  'agentBash.sandbox.limits.tmpdirSize': {
    type: 'integer',
    default: 512,
    minimum: 0,
    markdownDescription: "Size in MiB of a sandboxed command's `TMPDIR`: a memory-backed folder of its own (a persistent shell keeps its own for its life), emptied when it exits. `0`: the session's shared folder under `/tmp`, unlimited. Needs bubblewrap 0.6 or later.",
    order: 12,
  },
  'agentBash.sandbox.limits.tmpMiB': {
    type: 'integer',
    default: 512,
    minimum: 0,
    markdownDeprecationMessage: 'Renamed: use `#agentBash.sandbox.limits.tmpdirSize#` (the same number of MiB). Still read while the new setting is left at its default.',
    markdownDescription: "Size in MiB of a sandboxed command's `TMPDIR` (old name of `#agentBash.sandbox.limits.tmpdirSize#`).",
    order: 14,
  },
  'agentBash.sandbox.network.allowedDomains': {
    type: 'array',
    items: {
      type: 'string',
    },
    default: [],
    markdownDescription: 'Hosts sandboxed commands may reach (through a filtering proxy); `*.example.com` allows subdomains. Ports 80 and 443 only, unless the entry names one (`example.com:8080`, `[::1]:8080`: then only that port). A name that resolves to a loopback, private, link-local or metadata address is refused unless that address itself is listed (`127.0.0.1:3000`). Empty: no network. [Allow the npm, PyPI and crates.io registries](command:agentBash.sandbox.allowPackageRegistries)',
    order: 8,
  },
  'agentBash.sandbox.env.allow': {
    type: 'array',
    items: {
      type: 'string',
    },
    default: [],
    markdownDescription: "Host environment variables sandboxed commands also see (names, `*` globs: `GITHUB_TOKEN`, `NODE_EXTRA_CA_CERTS`, `MY_TOOL_*`). Otherwise a sandboxed command gets only the locale (`LANG`, `LC_*`, `LANGUAGE`, `TZ`), `PATH`, `HOME`, `USER`, `LOGNAME`, `SHELL`, `TERM`, `COLORTERM`, Agent Bash's non-interactive variables and marks, the proxy variables and the call's own `env`: tokens, `SSH_AUTH_SOCK` and VS Code's IPC variables stay outside.",
    order: 13,
  },
  'agentBash.terminal.reveal': {
    type: 'boolean',
    default: true,
    description: "Show a caller's terminal (Agent Bash for your own runs, AB: Copilot, AB: <agent name>, …) when a command starts in it, without taking focus.",
    order: 14,
  },
  'agentBash.terminal.keep': {
    type: 'number',
    default: 10,
    minimum: 0,
    description: 'Caller terminals with no unreleased command kept open so you can read them back; older ones close first. 0 closes a terminal as soon as its last command is released.',
    order: 15,
  },
  'agentBash.acp.agents': {
    type: 'array',
    default: [],
    markdownDescription: 'ACP agents that `Agent Bash: Connect ACP Agent` can launch over stdio: `{ "name", "command", "args"?, "env"?, "cwd"? }`.',
    items: {
      type: 'object',
      required: ['name', 'command'],
      properties: {
        name: {
          type: 'string',
        },
        command: {
          type: 'string',
        },
        args: {
          type: 'array',
          items: {
            type: 'string',
          },
        },
        env: {
          type: 'object',
          additionalProperties: {
            type: 'string',
          },
        },
        cwd: {
          type: 'string',
        },
      },
    },
    order: 28,
  },
  'agentBash.mcp.enabled': {
    type: 'boolean',
    default: false,
    markdownDescription: 'Serve the Agent Bash tools (`bash`, `bash_output`, `bash_kill`, `read_artifact`) to MCP clients (Claude Code, Codex, Cline…) over Streamable HTTP on `127.0.0.1`, behind a bearer token (**Agent Bash: Copy MCP Configuration**). Every call goes through the same policy, approvals and terminals.',
    order: 29,
  },
  'agentBash.mcp.port': {
    type: 'number',
    default: 0,
    minimum: 0,
    maximum: 65535,
    markdownDescription: 'Port of the MCP server on `127.0.0.1`. `0`: a free port chosen once and kept across reloads and restarts (moved, with a notification, only when another program took it); the status bar and the copied configuration show it.',
    order: 30,
  },
  'agentBash.mcp.maxResultCharacters': {
    type: 'number',
    default: 38000,
    minimum: 2000,
    markdownDescription: 'Characters an MCP tool result may have at most. Longer results keep their start and their end (exit status, `artifact://` footer) with a line saying what was cut and where the whole text is. Clients cut long results themselves: Gemini CLI anything over 40,000 characters (its wrapper included), Claude Code over about 50,000 (a short preview only), so keep this below that.',
    order: 31,
  },
} as const;

type Properties = typeof SETTINGS_PROPERTIES;
/** Every setting's full name, `agentBash.…`. */
export type SettingKey = keyof Properties;

/** The value type a setting's schema admits (its enum, else its JSON type). */
type ValueOf<S> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { type: 'boolean' }
    ? boolean
    : S extends { type: 'number' | 'integer' }
      ? number
      : S extends { type: 'string' }
        ? string
        : S extends { type: 'array'; items: { type: 'string' } }
          ? string[]
          : S extends { type: 'array' }
            ? unknown[]
            : unknown;

/** The value of each setting as its schema types it. */
export type SettingValues = { -readonly [K in SettingKey]: ValueOf<Properties[K]> };

/** A setting's default, as package.json declares it (arrays copied, so a caller cannot change the schema's). */
export function settingDefault<K extends SettingKey>(key: K): SettingValues[K] {
  const value: unknown = SETTINGS_PROPERTIES[key].default;
  return (Array.isArray(value) ? [...(value as unknown[])] : value) as SettingValues[K];
}

/** The `contributes.configuration` object package.json carries. */
export function settingsContribution(): { title: string; properties: Properties } {
  return { title: SETTINGS_TITLE, properties: SETTINGS_PROPERTIES };
}
