import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bashInputJsonSchema } from '../../src/core/input';
import { settingsContribution } from '../../src/core/settingsSchema';

const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));

describe('manifest (package.json)', () => {
  it('declares the agent_bash tool with the input schema generated from the zod schema', () => {
    const tool = pkg.contributes.languageModelTools.find((t: { name: string }) => t.name === 'agent_bash');
    assert.deepEqual(tool.inputSchema, bashInputJsonSchema({ asyncEnabled: true }), 'run `npm run gen:schema`');
    assert.match(tool.modelDescription, /50 KiB/);
    assert.match(tool.modelDescription, /default 300, clamped to 1-3600/);
  });

  it('carries the settings exactly as the one schema (src/core/settingsSchema.ts) declares them', () => {
    assert.deepEqual(pkg.contributes.configuration, JSON.parse(JSON.stringify(settingsContribution())), 'run `npm run gen:settings`');
  });

  it('contributes a setting for every knob, visible in the Settings UI', () => {
    const keys = Object.keys(pkg.contributes.configuration.properties).sort();
    assert.deepEqual(keys, [
      'agentBash.acp.agents',
      'agentBash.artifactHeadBytes',
      'agentBash.async.enabled',
      'agentBash.async.maxJobs',
      'agentBash.autoBackground.enabled',
      'agentBash.autoBackground.thresholdMs',
      'agentBash.builtinRules',
      'agentBash.direnv',
      'agentBash.interceptor.enabled',
      'agentBash.interceptor.patterns',
      'agentBash.maxTimeout',
      'agentBash.mcp.enabled',
      'agentBash.mcp.maxResultCharacters',
      'agentBash.mcp.port',
      'agentBash.outputMaxColumns',
      'agentBash.patterns',
      'agentBash.sandbox.autoApprove',
      'agentBash.sandbox.caches.shareWithHost',
      'agentBash.sandbox.enabled',
      'agentBash.sandbox.env.allow',
      'agentBash.sandbox.filesystem.allowWrite',
      'agentBash.sandbox.filesystem.denyRead',
      'agentBash.sandbox.filesystem.denyWrite',
      'agentBash.sandbox.git.allowWrite',
      'agentBash.sandbox.limits.memory',
      'agentBash.sandbox.limits.memoryMiB',
      'agentBash.sandbox.limits.processes',
      'agentBash.sandbox.limits.tmpMiB',
      'agentBash.sandbox.limits.tmpdirSize',
      'agentBash.sandbox.network.allowedDomains',
      'agentBash.shell.args',
      'agentBash.shell.path',
      'agentBash.terminal.keep',
      'agentBash.terminal.reveal',
    ]);
    for (const key of keys) {
      const prop = pkg.contributes.configuration.properties[key];
      assert.ok(prop.description || prop.markdownDescription, `${key} has no description`);
      assert.ok('default' in prop, `${key} has no default`);
    }
  });

  it('orders the settings by importance: rules, then the sandbox, then terminals; ACP and MCP last', () => {
    const props = pkg.contributes.configuration.properties as Record<string, { order?: number }>;
    const byOrder = Object.entries(props).sort((a, b) => (a[1].order ?? 1e9) - (b[1].order ?? 1e9)).map(([k]) => k);
    for (const [key, prop] of Object.entries(props)) assert.equal(typeof prop.order, 'number', `${key} has no order`);
    assert.deepEqual(byOrder.slice(0, 3), ['agentBash.patterns', 'agentBash.builtinRules', 'agentBash.sandbox.enabled']);
    assert.ok(byOrder.indexOf('agentBash.terminal.reveal') < byOrder.indexOf('agentBash.acp.agents'));
    assert.ok(byOrder.slice(-4).every((k) => k.startsWith('agentBash.acp.') || k.startsWith('agentBash.mcp.')), byOrder.slice(-4).join(', '));
  });

  it('ignores a untrusted workspace\'s own policy, shell and agent settings', () => {
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.deepEqual(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations, [
      'agentBash.patterns',
      'agentBash.shell.path',
      'agentBash.shell.args',
      'agentBash.acp.agents',
      'agentBash.interceptor.patterns',
      'agentBash.mcp.enabled',
      'agentBash.mcp.port',
      // A repository must not switch its own sandbox off, approve on its own, or widen it.
      'agentBash.sandbox.enabled',
      'agentBash.sandbox.autoApprove',
      'agentBash.sandbox.filesystem.allowWrite',
      'agentBash.sandbox.network.allowedDomains',
      'agentBash.sandbox.env.allow',
      // Nor let the agent write its git metadata or the host's package stores, or lift its limits.
      'agentBash.sandbox.git.allowWrite',
      'agentBash.sandbox.caches.shareWithHost',
      'agentBash.sandbox.limits.processes',
      'agentBash.sandbox.limits.memory',
      'agentBash.sandbox.limits.memoryMiB',
      'agentBash.sandbox.limits.tmpdirSize',
      'agentBash.sandbox.limits.tmpMiB',
      // Nor turn the built-in read-only list back on where the person turned it off.
      'agentBash.builtinRules',
    ]);
  });

  it('activates on its own commands and tool, never on *', () => {
    assert.ok(!pkg.activationEvents.includes('*'));
    assert.deepEqual(pkg.extensionKind, ['workspace']);
    assert.equal(pkg.engines.vscode, '^1.95.0');
    const titles = pkg.contributes.commands.map((c: { command: string; title: string }) => `${c.command}=${c.title}`);
    assert.ok(titles.includes('agentBash.run=Run Agent Bash'));
  });

  it('offers the MCP server: off by default, its commands, and the provider id the code registers', () => {
    assert.equal(pkg.contributes.configuration.properties['agentBash.mcp.enabled'].default, false);
    const titles = pkg.contributes.commands.map((c: { command: string; title: string }) => `${c.command}=${c.title}`);
    assert.ok(titles.includes('agentBash.copyMcpConfig=Copy MCP Configuration'));
    assert.ok(titles.includes('agentBash.rotateMcpToken=Rotate MCP Token'));
    assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders, [{ id: 'agentBash.mcp', label: 'Agent Bash' }]);
  });

  it('README has no relative links (vsce refuses to package it without a repository URL, and npm start packages)', () => {
    const readme = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
    const relative = [...readme.matchAll(/\]\(([^)#][^)]*)\)/g)].map((m) => m[1]).filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href));
    assert.deepEqual(relative, []);
  });
});
