import type { Context } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';

/** Why a span never reached the collector. */
export type SpanDropReason = 'queue_full' | 'export_failed';

export interface BoundedSpanExportOptions {
  readonly exporter: SpanExporter;
  /** Finished spans waiting for export, at most. */
  readonly maxQueueSpans: number;
  readonly batchSpans: number;
  readonly batchIntervalMs: number;
  /** How long the batch processor waits for one export (a little over the exporter's own time-out). */
  readonly exportTimeoutMs: number;
  readonly onDrop: (reason: SpanDropReason, count: number) => void;
}

/**
 * The SDK's BatchSpanProcessor with its drops counted. The batch processor drops spans
 * silently when its queue is full; this processor keeps the same count in front of it (a
 * span is queued when it ends, leaves the queue when the batch processor hands it to the
 * exporter) and drops, counting, what would not fit, so the batch processor never has to.
 * Spans the exporter reports as not delivered (collector refused, failed, timed out, or the
 * exporter's own concurrency limit) are counted too. Everything here is synchronous work
 * on an array: ending a span never waits for the collector.
 */
export class BoundedSpanExport implements SpanProcessor {
  private queued = 0;
  private readonly batch: BatchSpanProcessor;

  constructor(private readonly options: BoundedSpanExportOptions) {
    const { exporter, onDrop } = options;
    const counting: SpanExporter = {
      export: (spans: ReadableSpan[], done: (result: ExportResult) => void) => {
        this.queued -= spans.length;
        exporter.export(spans, (result) => {
          if (result.code !== ExportResultCode.SUCCESS) onDrop('export_failed', spans.length);
          done(result);
        });
      },
      shutdown: () => exporter.shutdown(),
      forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
    };
    this.batch = new BatchSpanProcessor({
      exporter: counting,
      maxQueueSize: options.maxQueueSpans,
      maxExportBatchSize: options.batchSpans,
      scheduledDelayMillis: options.batchIntervalMs,
      exportTimeoutMillis: options.exportTimeoutMs,
    });
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    if (this.queued >= this.options.maxQueueSpans) {
      this.options.onDrop('queue_full', 1);
      return;
    }
    this.queued++;
    this.batch.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.batch.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.batch.shutdown();
  }
}
