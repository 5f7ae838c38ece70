// Credential stores hidden from every sandboxed command (an empty folder or file in their place),
// relative to the home folder, by pattern: `*` matches within one path segment. The tools' own
// files: git, gh, package registries, containers, clusters, cloud CLIs, coding agents' tokens and
// the editors' secret storage (VS Code, its forks, code-server).
import { readdirSync } from 'node:fs';
import * as path from 'node:path';

export const SECRET_HOME_PATTERNS = [
  // Keys and generic credential files.
  '.ssh', '.gnupg', '.netrc', '.password-store', '.local/share/keyrings', '.pki',
  // git and its forges.
  '.git-credentials', '.config/git/credentials', '.config/gh', '.config/hub', '.config/glab-cli',
  // Package registries.
  '.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc', '.config/pip/pip.conf', '.cargo/credentials', '.cargo/credentials.toml', '.gem/credentials',
  '.m2/settings.xml', '.m2/settings-security.xml', '.gradle/gradle.properties', '.nuget/NuGet/NuGet.Config', '.composer/auth.json', '.config/composer/auth.json',
  // Containers and clusters.
  '.docker/config.json', '.docker/contexts', '.kube', '.config/helm', '.config/containers/auth.json',
  // Cloud CLIs.
  '.aws', '.azure', '.config/gcloud', '.config/doctl', '.oci', '.config/hcloud', '.config/linode-cli', '.config/scw', '.s3cfg', '.boto',
  '.config/rclone', '.terraform.d/credentials.tfrc.json', '.vault-token', '.config/heroku', '.fly', '.config/netlify', '.vercel', '.config/vercel',
  '.wrangler', '.config/op', '.config/stripe',
  // Model hubs (the home's .cache is bound into a sandbox's home: its token files are not).
  '.cache/huggingface/token', '.cache/huggingface/stored_tokens', '.huggingface',
  // Language registries' upload and login tokens inside toolchain folders the sandbox's home shows.
  '.julia/servers/*/auth.toml', '.pub-cache/credentials.json', '.config/dart', '.stack/upload',
  // Coding agents and assistants.
  '.config/github-copilot', '.claude*', '.config/claude*', '.codex', '.gemini', '.config/gemini*', '.cursor', '.aider*', '.continue', '.codeium',
  '.config/openai', '.anthropic', '.config/anthropic', '.local/share/opencode', '.config/opencode',
  // Editors' secret storage.
  '.config/Code*/User/globalStorage/state.vscdb*', '.config/Cursor/User/globalStorage/state.vscdb*', '.config/VSCodium/User/globalStorage/state.vscdb*',
  '.config/Windsurf/User/globalStorage/state.vscdb*', '.vscode-server/data/User/globalStorage/state.vscdb*',
  '.local/share/code-server/User/globalStorage/state.vscdb*', '.config/code-server/config.yaml',
];

function segmentRegex(segment: string): RegExp {
  return new RegExp(`^${segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
}

/** The existing paths under `home` that `patterns` name (a pattern's missing paths cost one lookup). */
export function expandSecretPatterns(home: string, patterns: readonly string[] = SECRET_HOME_PATTERNS): string[] {
  const out = new Set<string>();
  const listings = new Map<string, string[]>();
  const list = (dir: string): string[] => {
    let names = listings.get(dir);
    if (!names) {
      try {
        names = readdirSync(dir);
      } catch {
        names = [];
      }
      listings.set(dir, names);
    }
    return names;
  };
  for (const pattern of patterns) {
    let current = [home];
    for (const segment of pattern.split('/')) {
      const next: string[] = [];
      if (segment.includes('*')) {
        const re = segmentRegex(segment);
        for (const dir of current) for (const name of list(dir)) if (re.test(name)) next.push(path.join(dir, name));
      } else {
        for (const dir of current) if (list(dir).includes(segment)) next.push(path.join(dir, segment));
      }
      current = next;
      if (current.length === 0) break;
    }
    for (const p of current) out.add(p);
  }
  return [...out];
}

/** `.env`, `.env.local`, `.envrc`, `.envrc.local`, `.env-prod`…: a project's secrets and direnv files. */
export const ENV_FILE = /^\.env(rc)?([._-].*)?$/;
