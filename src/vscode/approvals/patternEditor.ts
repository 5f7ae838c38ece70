// "Edit Patterns…" of Always allow…: each proposed "commands like…" pattern in an input box, filled
// in, naming the command it is for; the dialog checks the answer (proposalCheck.ts checkEditedPattern)
// and asks again with the reason when it cannot be saved.
import * as vscode from 'vscode';
import { proposalStem } from '../../core/policy/rules/ruleProposal';
import type { PatternEditor } from './approvalDialog';

export const editPatternInBox: PatternEditor = async (proposal, current, problem) => {
  const stem = proposalStem(proposal.rule.match).join(' ');
  return vscode.window.showInputBox({
    title: `Agent Bash: allow commands like… (command ${proposal.index}: ${proposal.text})`,
    value: current,
    prompt: problem ? `Not saved: ${problem}.` : `Starts with \`${stem}\`; \`*\` matches any run of characters. Narrow it if you like.`,
    ignoreFocusOut: true,
  });
};
