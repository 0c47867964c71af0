import { parseConfigText } from './load-config.js';
import type { GatewayConfig } from './gateway-config.js';
import { DEMO_ADMIN_KEY, DEMO_API_KEY } from './example-secrets.js';

export { DEMO_ADMIN_KEY, DEMO_API_KEY };

/** Where the demo keeps its store and journal: never where a configured gateway would (PRODUCT decision 23). */
export const DEMO_STORE = 'pglite:./.switchyard/demo';
export const DEMO_JOURNAL_DIR = './.switchyard/demo-journal';

/**
 * The built-in demo used when no configuration is given: one simulated node, a reasoning
 * model and a plain one (aliased so coding agents' own model ids reach them: `claude-*` and
 * `gpt-*` the reasoner, Claude Code's background `claude-…haiku…` calls the plain one), a demo account and key, and the console and admin API behind a
 * demo admin key. Written as YAML so it goes through the same validation as a user's file. Its store is its own (`SWITCHYARD_STORE` overrides
 * it), so its public key never lands in the default store a configured gateway opens.
 */
const DEMO_YAML = `
listen: { host: 127.0.0.1, port: "\${PORT:-8080}" }
store: "\${SWITCHYARD_STORE:-${DEMO_STORE}}"
usage: { journal_dir: "${DEMO_JOURNAL_DIR}" }
admin_key: "\${SWITCHYARD_ADMIN_KEY:-${DEMO_ADMIN_KEY}}"
nodes:
  - id: simulated-1
    provider: simulated
    max_concurrency: 256
    simulated: { first_byte_ms: 150, tokens_per_second: 40 }
models:
  - id: demo-reasoner
    aliases: ["claude-*", "gpt-*"]
    context_length: 32768
    reasoning: { default_effort: medium }
    pricing: { input: 0.20, output: 0.60 }
    routes: [{ node: simulated-1, model: simulated-reasoner }]
  - id: demo-chat
    aliases: ["claude-*haiku*"]
    context_length: 32768
    routes: [{ node: simulated-1, model: simulated-chat }]
accounts:
  - { id: demo, balance: 10.0 }
keys:
  - { key: ${DEMO_API_KEY}, account: demo, name: demo }
`;

export function demoConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return parseConfigText(DEMO_YAML, 'built-in demo', env, { demo: true });
}
