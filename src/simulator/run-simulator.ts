import { parseArgs } from 'node:util';
import type { ReasoningField } from './completion-identity.js';
import { SimulatedNode, type SimulatedNodeOptions } from './simulated-node.js';

/** Hooks for embedding or testing the CLI entry; the CLI itself passes none. */
export interface RunSimulatorOptions {
  /** Stops the node when aborted, like SIGINT/SIGTERM. */
  signal?: AbortSignal;
  /** Where the "listening" line goes (default: stdout). */
  print?: (line: string) => void;
}

/** `switchyard simulate`'s usage line (also its `--help`). */
export const SIMULATE_USAGE =
  'usage: switchyard simulate [--port N] [--host H] [--first-byte-ms N] [--tokens-per-second N]' +
  ' [--reasoning-field reasoning_content|reasoning] [--context-length N] [--seed N]' +
  ' [--prefix-cache-tokens N] [--block-tokens N] [--prefill-ms-per-token N] [--max-num-seqs N]';

function readNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0) {
    throw new Error(`--${flag} expects a number >= 0, got "${value}"\n${SIMULATE_USAGE}`);
  }
  return number;
}

function readReasoningField(value: string | undefined): ReasoningField | undefined {
  if (value === undefined || value === 'reasoning_content' || value === 'reasoning') return value;
  throw new Error(`--reasoning-field expects reasoning_content or reasoning, got "${value}"\n${SIMULATE_USAGE}`);
}

/**
 * `switchyard simulate`: starts one simulated node from command-line flags, prints
 * "simulated node listening on <baseUrl>" and resolves once SIGINT/SIGTERM (or
 * `options.signal`) has stopped it. Throws on bad flags.
 */
export async function runSimulator(argv: string[], options: RunSimulatorOptions = {}): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'first-byte-ms': { type: 'string' },
      'tokens-per-second': { type: 'string' },
      'reasoning-field': { type: 'string' },
      'context-length': { type: 'string' },
      seed: { type: 'string' },
      'prefix-cache-tokens': { type: 'string' },
      'block-tokens': { type: 'string' },
      'prefill-ms-per-token': { type: 'string' },
      'max-num-seqs': { type: 'string' },
    },
  });
  const port = readNumber(values.port, 'port') ?? 0;
  if (!Number.isInteger(port) || port > 65535) throw new Error(`--port expects an integer 0-65535\n${SIMULATE_USAGE}`);
  const nodeOptions: SimulatedNodeOptions = {};
  const firstByteMs = readNumber(values['first-byte-ms'], 'first-byte-ms');
  if (firstByteMs !== undefined) nodeOptions.firstByteMs = firstByteMs;
  const tokensPerSecond = readNumber(values['tokens-per-second'], 'tokens-per-second');
  if (tokensPerSecond !== undefined) nodeOptions.tokensPerSecond = tokensPerSecond;
  const reasoningField = readReasoningField(values['reasoning-field']);
  if (reasoningField !== undefined) nodeOptions.reasoningField = reasoningField;
  const contextLength = readNumber(values['context-length'], 'context-length');
  if (contextLength !== undefined) nodeOptions.contextLength = contextLength;
  const seed = readNumber(values.seed, 'seed');
  if (seed !== undefined) nodeOptions.seed = seed;
  const capacityTokens = readNumber(values['prefix-cache-tokens'], 'prefix-cache-tokens');
  const blockTokens = readNumber(values['block-tokens'], 'block-tokens');
  if (capacityTokens !== undefined) nodeOptions.prefixCache = { capacityTokens, blockTokens };
  else if (blockTokens !== undefined) throw new Error(`--block-tokens needs --prefix-cache-tokens\n${SIMULATE_USAGE}`);
  const prefillMsPerToken = readNumber(values['prefill-ms-per-token'], 'prefill-ms-per-token');
  if (prefillMsPerToken !== undefined) nodeOptions.prefillMsPerToken = prefillMsPerToken;
  const maxNumSeqs = readNumber(values['max-num-seqs'], 'max-num-seqs');
  if (maxNumSeqs !== undefined) nodeOptions.maxNumSeqs = maxNumSeqs;

  const node = new SimulatedNode(nodeOptions);
  const baseUrl = await node.listen(port, values.host ?? '127.0.0.1');
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  print(`simulated node listening on ${baseUrl}`);

  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      options.signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (options.signal?.aborted === true) stop();
    else options.signal?.addEventListener('abort', stop, { once: true });
  });
  await node.close();
}
