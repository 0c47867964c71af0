import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { UsageSettings } from './gateway-config.js';

/** Where usage rows wait before the store takes them; the memory store keeps no journal. */
export function resolveUsage(file: ConfigFile['usage'], store: string): UsageSettings {
  return {
    journalDir: store === 'memory' ? undefined : (file?.journal_dir ?? DEFAULTS.usageJournalDir),
    flushIntervalMs: file?.flush_interval_ms ?? DEFAULTS.usageFlushIntervalMs,
    maxBatchRows: file?.max_batch_rows ?? DEFAULTS.usageMaxBatchRows,
    maxWaitingRows: file?.max_waiting_rows ?? DEFAULTS.usageMaxWaitingRows,
    streamProgressIntervalMs: file?.stream_progress_interval_ms ?? DEFAULTS.usageStreamProgressIntervalMs,
  };
}
