import type { SseRecord } from '../providers/types.js';

/**
 * Called instead of `onRecord` for an event in the plain framing nearly every node uses,
 * `data: <data>\n\n` with nothing else: the event is `text[eventStart, eventEnd)` and its
 * data `text[eventStart + 6, eventEnd - 2)`, left in place for the caller to read (no
 * line or data string is cut out of the text).
 */
export type OnPlainEvent = (text: string, eventStart: number, eventEnd: number) => void;

/** Length of `data: `, the start of a plain event. */
export const PLAIN_EVENT_HEAD = 6;
/** Length of `\n\n`, the end of a plain event. */
export const PLAIN_EVENT_TAIL = 2;

/**
 * Incremental Server-Sent Events parser (provider-protocols 1, WHATWG event-stream
 * rules): lines end in CRLF, LF or CR, possibly split across chunks; `:` lines are
 * comments; `data:` lines of one event are joined with "\n"; a blank line dispatches.
 */
export class SseParser {
  private pending = '';
  private skipLeadingLineFeed = false;
  private eventName: string | undefined = undefined;
  private data: string | undefined = undefined;

  /**
   * Feeds decoded text; calls `onRecord` for every complete event, or `onPlainEvent` (when
   * given) for one in the plain framing (see OnPlainEvent).
   */
  push(text: string, onRecord: (record: SseRecord) => void, onPlainEvent?: OnPlainEvent): void {
    let start = 0;
    if (this.skipLeadingLineFeed) {
      this.skipLeadingLineFeed = false;
      if (text.charCodeAt(0) === 10) start = 1;
    }
    const buffer = this.pending === '' ? text : this.pending + text;
    if (this.pending !== '') start = 0;
    this.pending = '';
    const length = buffer.length;
    // Nearly every node ends lines with LF alone: then the native indexOf finds them.
    const lineFeedOnly = buffer.indexOf('\r', start) === -1;
    while (start < length) {
      if (lineFeedOnly && this.data === undefined && this.eventName === undefined && buffer.startsWith('data: ', start)) {
        // A whole `data: …\n\n` event, no event in progress: handed over where it lies.
        const lineEnd = buffer.indexOf('\n', start + PLAIN_EVENT_HEAD);
        if (lineEnd !== -1 && buffer.charCodeAt(lineEnd + 1) === 10) {
          const eventEnd = lineEnd + PLAIN_EVENT_TAIL;
          if (onPlainEvent !== undefined) onPlainEvent(buffer, start, eventEnd);
          else onRecord({ event: undefined, data: buffer.slice(start + PLAIN_EVENT_HEAD, lineEnd) });
          start = eventEnd;
          continue;
        }
      }
      let end = start;
      let code = 0;
      if (lineFeedOnly) {
        end = buffer.indexOf('\n', start);
        if (end === -1) end = length;
        else code = 10;
      } else {
        while (end < length) {
          code = buffer.charCodeAt(end);
          if (code === 10 || code === 13) break;
          end++;
        }
      }
      if (end === length) {
        this.pending = buffer.slice(start);
        return;
      }
      this.processLine(buffer.slice(start, end), onRecord);
      if (code === 13) {
        if (end + 1 === length) {
          this.skipLeadingLineFeed = true;
          start = length;
          break;
        }
        start = buffer.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
      } else {
        start = end + 1;
      }
    }
  }

  /** The body ended: dispatch an event that was not followed by a blank line. */
  end(onRecord: (record: SseRecord) => void): void {
    if (this.pending !== '') this.processLine(this.pending, onRecord);
    this.pending = '';
    this.processLine('', onRecord);
  }

  private processLine(line: string, onRecord: (record: SseRecord) => void): void {
    if (line === '') {
      if (this.data !== undefined) onRecord({ event: this.eventName, data: this.data });
      this.eventName = undefined;
      this.data = undefined;
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    else if (field === 'event') this.eventName = value;
  }
}
