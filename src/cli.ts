#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError } from './config/config-error.js';
import { DEMO_ADMIN_KEY, DEMO_API_KEY, demoConfig } from './config/demo-config.js';
import { loadConfigFile } from './config/load-config.js';
import type { GatewayConfig } from './config/gateway-config.js';
import { ADMIN_USAGE } from './cli/admin-usage.js';
import { CliUsageError } from './cli/cli-usage-error.js';
import { tuneV8Heap } from './lifecycle/tune-v8-heap.js';
import { holdYoungGeneration } from './lifecycle/young-generation-cap.js';
import { fieldOf } from './validation/field-of.js';

const USAGE = `Usage:
  switchyard serve [--config FILE]     start the gateway (FILE or $SWITCHYARD_CONFIG; none: the built-in demo)
  switchyard check --config FILE       validate a configuration file and exit
  switchyard simulate [--port N] …     run a simulated OpenAI-compatible node on its own

${ADMIN_USAGE}`;

/** The usage text for one command's `--help`. */
async function commandUsage(command: string): Promise<string> {
  if (command === 'keys' || command === 'accounts' || command === 'usage' || command === 'requests') return ADMIN_USAGE;
  if (command === 'simulate') return `${(await import('./simulator/run-simulator.js')).SIMULATE_USAGE}\n`;
  return USAGE;
}

function fail(message: string, code = 2): never {
  process.stderr.write(`switchyard: ${message}\n`);
  process.exit(code);
}

function loadConfig(file: string | undefined): { config: GatewayConfig; demo: boolean } {
  if (file === undefined) return { config: demoConfig(), demo: true };
  return { config: loadConfigFile(file), demo: false };
}

async function serve(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { config: { type: 'string', short: 'c' }, port: { type: 'string' } },
  });
  tuneV8Heap();
  const youngGeneration = holdYoungGeneration();
  const { config, demo } = loadConfig(values.config ?? (process.env.SWITCHYARD_CONFIG || undefined));
  const { startGateway } = await import('./main.js');
  const gateway = await startGateway(config, values.port === undefined ? {} : { port: Number(values.port) });
  youngGeneration.release();
  const lines = [`Switchyard listening on ${gateway.baseUrl} (config: ${config.source})`];
  if (gateway.metricsUrl !== undefined) lines.push(`Metrics on ${gateway.metricsUrl}`);
  if (!demo && config.adminKey !== undefined)
    lines.push(`Console: ${new URL(gateway.baseUrl).origin}/console (sign in with the configuration's admin_key)`);
  if (demo) {
    lines.push(
      `Demo models: ${config.models.map((model) => model.id).join(', ')} on a simulated node`,
      `Demo API key: ${DEMO_API_KEY}`,
      `Console: ${new URL(gateway.baseUrl).origin}/console (admin key: ${config.adminKey === DEMO_ADMIN_KEY ? DEMO_ADMIN_KEY : '$SWITCHYARD_ADMIN_KEY'})`,
      `Demo store: ${config.store} (the demo's own; a gateway started with a configuration never opens it)`,
      `Try: curl ${gateway.baseUrl}/chat/completions -H "Authorization: Bearer ${DEMO_API_KEY}" -H "Content-Type: application/json" -d '{"model":"demo-reasoner","stream":true,"messages":[{"role":"user","content":"Hello"}]}'`,
    );
  }
  process.stderr.write(`${lines.join('\n')}\n`);
  const file = values.config ?? (process.env.SWITCHYARD_CONFIG || undefined);
  process.on('SIGHUP', () => {
    if (file === undefined) {
      gateway.logger.warn('SIGHUP ignored: the demo has no configuration file to reload');
      return;
    }
    // A bad new file keeps the running configuration; in-flight requests are never dropped.
    let next: GatewayConfig;
    try {
      next = loadConfigFile(file);
    } catch (error) {
      gateway.logger.error(
        { reason: error instanceof ConfigError ? error.message : String(error) },
        'configuration reload rejected; keeping the running configuration',
      );
      return;
    }
    gateway.reload(next).then(
      () =>
        gateway.logger.info(
          { config: file, nodes: next.nodes.length, models: next.models.length },
          'configuration reloaded',
        ),
      (error: unknown) => gateway.logger.error({ err: error }, 'configuration reload failed'),
    );
  });
  // Graceful stop (docs/operations.md, "Shutdown"): in-flight requests get shutdown.grace_ms, then are
  // ended; hooks run; exit 0. A second signal exits at once.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      gateway.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    gateway.logger.info({ signal }, 'signal received');
    gateway.close({ graceMs: gateway.services.snapshot.config.shutdown.graceMs }).then(
      () => process.exit(0),
      (error: unknown) => {
        gateway.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function check(argv: string[]): void {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
  const file = values.config ?? (process.env.SWITCHYARD_CONFIG || undefined);
  if (file === undefined) fail('check needs --config FILE');
  const config = loadConfigFile(file);
  const counted = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
  process.stdout.write(
    `${file}: valid (${counted(config.nodes.length, 'node')}, ${counted(config.models.length, 'model')}, ${counted(config.keys.length, 'key')})\n`,
  );
}

// Each command loads only its own modules: `serve` never loads the admin CLI, the
// admin commands never load the HTTP server.
async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  // `switchyard <command> --help` (before any `--`): the command's usage, exit 0.
  const options = rest.indexOf('--') === -1 ? rest : rest.slice(0, rest.indexOf('--'));
  if (command !== undefined && (options.includes('--help') || options.includes('-h'))) {
    process.stdout.write(await commandUsage(command));
    return;
  }
  switch (command) {
    case 'serve':
    case undefined:
      return serve(rest);
    case 'check':
      return check(rest);
    case 'simulate':
      return (await import('./simulator/run-simulator.js')).runSimulator(rest);
    case 'keys':
    case 'accounts':
    case 'usage':
    case 'requests':
      process.exitCode = await (await import('./cli/admin-commands.js')).runAdminCommand(command, rest);
      return;
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(USAGE);
      return;
    default:
      fail(`unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) fail(error.message);
  if (error instanceof CliUsageError) fail(`${error.message}\n${ADMIN_USAGE}`);
  if (error instanceof TypeError && fieldOf(error, 'code') === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') fail(error.message);
  const code = fieldOf(error, 'code');
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'EADDRINUSE' || code === 'EACCES') fail(`cannot listen: ${message}`);
  // StoreBusyError (store/open-store.ts), matched by code so `serve` need not load the store to print it.
  if (code === 'store_busy') {
    const hint =
      process.argv[2] === 'serve' || process.argv[2] === undefined
        ? ': stop that gateway, or give this one a store of its own (`store:` in its configuration)'
        : '';
    fail(`${message}${hint}`, 1);
  }
  process.stderr.write(
    `switchyard: fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
