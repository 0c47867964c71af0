/**
 * The coding agents' versions the end-to-end tests install and run, in one place (issue 30:
 * an unpinned install took whatever the npm registry had that day). A newer version is a
 * deliberate bump: change it here and in test/README.md, then run the agent tests singly
 * (test/front-doors/claude-code.test.ts, test/e2e/codex-cli.test.ts,
 * test/e2e/agents-on-the-demo.test.ts).
 */
export const AGENT_VERSIONS = {
  /** `@anthropic-ai/claude-code`, installed by test/support/claude-code.ts. */
  claudeCode: '2.1.332',
  /** `@openai/codex`, installed by test/support/codex-cli.ts. */
  codex: '0.171.0',
} as const;
