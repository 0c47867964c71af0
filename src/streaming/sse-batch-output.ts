import type { SseOutput } from '../providers/types.js';

/**
 * The client's SSE text for one batch of a node's stream, collected as stretches of the
 * node's text, inserted pieces and the gateway's own chunks (framed here). Adjacent stretches of the same text are joined before
 * anything is cut out of it, so a batch whose events are forwarded unchanged (or changed in
 * one field each) is a few slices of the network text instead of one string per event.
 */
export class SseBatchOutput implements SseOutput {
  private out = '';
  /** The stretch being collected: `runText[runStart, runEnd)`; empty when runStart === runEnd. */
  private runText = '';
  private runStart = 0;
  private runEnd = 0;

  copy(text: string, from: number, to: number): void {
    if (from === this.runEnd && this.runEnd !== this.runStart && text === this.runText) {
      this.runEnd = to;
      return;
    }
    this.endRun();
    this.runText = text;
    this.runStart = from;
    this.runEnd = to;
  }

  insert(text: string): void {
    this.endRun();
    this.out += text;
  }

  emit(chunkJson: string): void {
    this.endRun();
    this.out += `data: ${chunkJson}\n\n`;
  }

  /** Nothing written since the last `take`. */
  get empty(): boolean {
    return this.out === '' && this.runEnd === this.runStart;
  }

  /**
   * Adds the stretch being collected to the text; call before the node's text it points
   * into is let go (the next network chunk is another text).
   */
  endRun(): void {
    if (this.runEnd === this.runStart) return;
    this.out += this.runText.slice(this.runStart, this.runEnd);
    this.runText = '';
    this.runStart = 0;
    this.runEnd = 0;
  }

  /** The text written since the last `take`. */
  take(): string {
    this.endRun();
    const out = this.out;
    this.out = '';
    return out;
  }
}
