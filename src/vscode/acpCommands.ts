import type * as vscode from 'vscode';
import type { AgentBashServices } from './services';

/** Registers the ACP client (Connect ACP Agent, the agent panel). */
export function registerAcp(_context: vscode.ExtensionContext, _services: AgentBashServices): void {}
