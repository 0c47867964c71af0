import { JsonCursor } from '../../streaming/json-cursor.js';

const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;
const COLON = 58;

/**
 * Reads what the stream mapper needs from an OpenAI `chat.completion.chunk` straight from
 * its JSON text, without `JSON.parse` and the objects it builds: the character counts of
 * `delta.content` and `delta.reasoning_content`, the first finish reason, and where the
 * top-level `model` string is; `id` and `created` for the stream's identity. It recognizes the common shape only; `scan` answers false
 * for anything the mapper must look at parsed: a `usage` or `error` that is not null, a
 * `reasoning` string to rename, an escaped or repeated key, a choice or delta that is
 * not an object, a finish reason with escapes, or text that is not valid JSON. The facts
 * of an accepted chunk are exactly what the parsed object would give.
 *
 * The chunks of one stream differ mostly in their first delta: the fields around it
 * repeat. So the scanner keeps the text before the first choice's delta value, with its
 * own state at that point, from the last chunk it read whole; a chunk that starts with
 * the same text is read on from there, which gives the same answer as reading it whole
 * (the scan is deterministic, left to right). Likewise the text after that delta: when it
 * repeats too, so does what it told the last time (it cannot depend on the delta).
 */
export class ChunkScanner {
  /** Total length of the `delta.content` strings, as JavaScript string lengths. */
  contentCharacters = 0;
  /** Total length of the `delta.reasoning_content` strings. */
  reasoningCharacters = 0;
  /** The first truthy `finish_reason` of the chunk's choices. */
  finishReason: string | undefined = undefined;
  /** Where the top-level `model` string's characters are in the text scanned (it has no escapes); -1 when there is none. */
  modelStart = -1;
  modelEnd = -1;
  /** Length of the remembered text (`prefix`) the last chunk started with; 0 when it was read whole. */
  resumedAt = 0;

  private readonly cursor = new JsonCursor();
  /** Where the chunk being read starts and ends in the cursor's text. */
  private base = 0;
  private end = 0;
  private seenModel = false;
  private seenId = false;
  private seenCreated = false;
  /** Where the top-level `id` string (no escapes) and `created` number are; -1 when there is none. */
  private idStart = -1;
  private idEnd = -1;
  private createdStart = -1;
  private createdEnd = -1;
  private seenChoices = false;
  private inFirstChoice = false;
  private seenDelta = false;
  private seenFinishReason = false;
  /** The start of a chunk as remembered: the text before the first choice's delta value. */
  private remembered = '';
  /** The state after it (the first choice's delta key read). */
  private prefixState: PrefixState | undefined = undefined;
  /** The text after the first choice's delta value, read on from the prefix, and what it told; '' when none. */
  private suffix = '';
  private suffixFinishReason: string | undefined = undefined;
  private suffixContentCharacters = 0;
  private suffixReasoningCharacters = 0;
  /** Taken during a whole read, kept if that read succeeds. */
  private candidate: PrefixState | undefined = undefined;
  private candidateEnd = 0;

  /** The remembered start of a chunk (see `resumedAt`): the text before the first choice's delta value. */
  get prefix(): string {
    return this.remembered;
  }

  /** The last chunk's top-level `id` if it is a string. */
  id(): string | undefined {
    return this.idStart === -1 ? undefined : copyOf(this.cursor.text.slice(this.idStart, this.idEnd));
  }

  /** The last chunk's top-level `created` if it is a number. */
  created(): number | undefined {
    return this.createdStart === -1 ? undefined : Number(this.cursor.text.slice(this.createdStart, this.createdEnd));
  }

  /** Reads one chunk's JSON text; false when the mapper must parse it instead. */
  scan(text: string): boolean {
    return this.scanRange(text, 0, text.length);
  }

  /**
   * `scan` of the chunk at `text[start, end)` (one event's data inside a batch of network
   * text), read in place; `modelStart` and `modelEnd` are then positions in `text`. Nothing
   * outside the range is accepted: a chunk must end exactly at `end`.
   */
  scanRange(text: string, start: number, end: number): boolean {
    this.base = start;
    this.end = end;
    const prefix = this.remembered;
    const state = this.prefixState;
    // Not `text.startsWith(prefix, start)`: on Node 20 that compares a ~200-character prefix
    // about twice as slowly as taking the slice and comparing it (the stream path's cost per
    // stream, bench/stream-path-cpu.mjs: 88 → 52 µs).
    if (state !== undefined && end - start > prefix.length && text.slice(start, start + prefix.length) === prefix) return this.resume(text, state);
    return this.scanWhole(text);
  }

  private scanWhole(text: string): boolean {
    this.resumedAt = 0;
    this.contentCharacters = 0;
    this.reasoningCharacters = 0;
    this.finishReason = undefined;
    this.modelStart = -1;
    this.modelEnd = -1;
    this.seenModel = false;
    this.idStart = -1;
    this.idEnd = -1;
    this.seenId = false;
    this.createdStart = -1;
    this.createdEnd = -1;
    this.seenCreated = false;
    this.seenChoices = false;
    this.inFirstChoice = false;
    this.candidate = undefined;
    const cursor = this.cursor;
    cursor.reset(text, this.base);
    if (!cursor.consume(OPEN_BRACE)) return false;
    if (!cursor.consume(CLOSE_BRACE) && !(this.readTopMember() && this.readRestOfTop())) return false;
    if (!this.atChunkEnd()) return false;
    const candidate = this.candidate;
    if (candidate !== undefined) {
      this.remembered = copyOf(text.slice(this.base, this.candidateEnd));
      this.prefixState = candidate;
      this.suffix = '';
    }
    return true;
  }

  private resume(text: string, state: PrefixState): boolean {
    this.resumedAt = this.remembered.length;
    this.contentCharacters = 0;
    this.reasoningCharacters = 0;
    const base = this.base;
    this.finishReason = state.finishReason;
    this.modelStart = at(base, state.modelStart);
    this.modelEnd = at(base, state.modelEnd);
    this.seenModel = state.seenModel;
    this.idStart = at(base, state.idStart);
    this.idEnd = at(base, state.idEnd);
    this.seenId = state.seenId;
    this.createdStart = at(base, state.createdStart);
    this.createdEnd = at(base, state.createdEnd);
    this.seenCreated = state.seenCreated;
    this.seenChoices = true;
    this.inFirstChoice = false;
    this.seenDelta = true;
    this.seenFinishReason = state.seenFinishReason;
    const cursor = this.cursor;
    cursor.reset(text, base + this.remembered.length);
    if (!this.readDeltaValue()) return false;
    const deltaEnd = cursor.position;
    const suffix = this.suffix;
    if (suffix !== '' && this.end - deltaEnd === suffix.length && text.slice(deltaEnd, this.end) === suffix) {
      this.finishReason = this.suffixFinishReason;
      this.contentCharacters += this.suffixContentCharacters;
      this.reasoningCharacters += this.suffixReasoningCharacters;
      return true;
    }
    const contentCharacters = this.contentCharacters;
    const reasoningCharacters = this.reasoningCharacters;
    if (!(this.readRestOfChoice() && this.readRestOfChoices() && this.readRestOfTop() && this.atChunkEnd())) return false;
    if (this.modelStart === at(base, state.modelStart) && this.idStart === at(base, state.idStart) && this.createdStart === at(base, state.createdStart)) {
      // (A model, id or created field after the delta would move with the delta's length.)
      this.suffix = copyOf(text.slice(deltaEnd, this.end));
      this.suffixFinishReason = this.finishReason;
      this.suffixContentCharacters = this.contentCharacters - contentCharacters;
      this.suffixReasoningCharacters = this.reasoningCharacters - reasoningCharacters;
    }
    return true;
  }

  /** The chunk's JSON ended (whitespace aside) exactly where the chunk does. */
  private atChunkEnd(): boolean {
    const cursor = this.cursor;
    if (cursor.position === this.end) return true;
    cursor.peek();
    return cursor.position === this.end;
  }

  private readTopMember(): boolean {
    const cursor = this.cursor;
    if (!readKey(cursor)) return false;
    if (cursor.stringIs('choices')) {
      if (this.seenChoices) return false;
      this.seenChoices = true;
      return cursor.readNull() || this.readChoices();
    }
    if (cursor.stringIs('model')) {
      if (this.seenModel) return false;
      this.seenModel = true;
      if (cursor.readString() === -1) return cursor.skipValue();
      if (cursor.stringEscaped) return false;
      this.modelStart = cursor.stringStart;
      this.modelEnd = cursor.stringEnd;
      return true;
    }
    if (cursor.stringIs('id')) {
      if (this.seenId) return false;
      this.seenId = true;
      if (cursor.readString() === -1) return cursor.skipValue();
      if (cursor.stringEscaped) return false;
      this.idStart = cursor.stringStart;
      this.idEnd = cursor.stringEnd;
      return true;
    }
    if (cursor.stringIs('created')) {
      if (this.seenCreated) return false;
      this.seenCreated = true;
      const code = cursor.peek();
      if (code !== 45 /* - */ && !(code >= 48 && code <= 57)) return cursor.skipValue();
      const start = cursor.position;
      if (!cursor.readNumber()) return false;
      this.createdStart = start;
      this.createdEnd = cursor.position;
      return true;
    }
    if (cursor.stringIs('usage') || cursor.stringIs('error')) return cursor.readNull();
    return cursor.skipValue();
  }

  private readRestOfTop(): boolean {
    const cursor = this.cursor;
    while (cursor.consume(COMMA)) if (!this.readTopMember()) return false;
    return cursor.consume(CLOSE_BRACE);
  }

  private readChoices(): boolean {
    const cursor = this.cursor;
    if (!cursor.consume(OPEN_BRACKET)) return false;
    if (cursor.consume(CLOSE_BRACKET)) return true;
    this.inFirstChoice = true;
    if (!this.readChoice()) return false;
    this.inFirstChoice = false;
    return this.readRestOfChoices();
  }

  private readRestOfChoices(): boolean {
    const cursor = this.cursor;
    while (cursor.consume(COMMA)) if (!this.readChoice()) return false;
    return cursor.consume(CLOSE_BRACKET);
  }

  private readChoice(): boolean {
    const cursor = this.cursor;
    if (!cursor.consume(OPEN_BRACE)) return false;
    this.seenDelta = false;
    this.seenFinishReason = false;
    if (cursor.consume(CLOSE_BRACE)) return true;
    return this.readChoiceMember() && this.readRestOfChoice();
  }

  private readRestOfChoice(): boolean {
    const cursor = this.cursor;
    while (cursor.consume(COMMA)) if (!this.readChoiceMember()) return false;
    return cursor.consume(CLOSE_BRACE);
  }

  private readChoiceMember(): boolean {
    const cursor = this.cursor;
    if (!readKey(cursor)) return false;
    if (cursor.stringIs('delta')) {
      if (this.seenDelta) return false;
      this.seenDelta = true;
      if (this.inFirstChoice) this.rememberPrefix();
      return this.readDeltaValue();
    }
    if (cursor.stringIs('finish_reason')) {
      if (this.seenFinishReason) return false;
      this.seenFinishReason = true;
      if (cursor.readNull()) return true;
      if (cursor.readString() === -1 || cursor.stringEscaped) return false;
      if (cursor.stringEnd > cursor.stringStart) this.finishReason ??= cursor.text.slice(cursor.stringStart, cursor.stringEnd);
      return true;
    }
    return cursor.skipValue();
  }

  /** The first choice's delta key was just read: the text so far may repeat in the next chunks. */
  private rememberPrefix(): void {
    this.cursor.peek();
    this.candidateEnd = this.cursor.position;
    const base = this.base;
    this.candidate = {
      seenModel: this.seenModel,
      modelStart: from(base, this.modelStart),
      modelEnd: from(base, this.modelEnd),
      seenId: this.seenId,
      idStart: from(base, this.idStart),
      idEnd: from(base, this.idEnd),
      seenCreated: this.seenCreated,
      createdStart: from(base, this.createdStart),
      createdEnd: from(base, this.createdEnd),
      finishReason: this.finishReason,
      seenFinishReason: this.seenFinishReason,
    };
  }

  private readDeltaValue(): boolean {
    const cursor = this.cursor;
    if (cursor.readNull()) return true;
    if (!cursor.consume(OPEN_BRACE)) return false;
    if (cursor.consume(CLOSE_BRACE)) return true;
    let seenContent = false;
    let seenReasoningContent = false;
    do {
      if (!readKey(cursor)) return false;
      if (cursor.stringIs('content')) {
        if (seenContent) return false;
        seenContent = true;
        const length = readStringLength(cursor);
        if (length === -1) return false;
        this.contentCharacters += length;
      } else if (cursor.stringIs('reasoning_content')) {
        if (seenReasoningContent) return false;
        seenReasoningContent = true;
        const length = readStringLength(cursor);
        if (length === -1) return false;
        this.reasoningCharacters += length;
      } else if (cursor.stringIs('reasoning')) {
        // The parsed path renames a string to reasoning_content (normalizeReasoningField) and leaves null alone.
        if (!cursor.readNull()) return false;
      } else if (!cursor.skipValue()) {
        return false;
      }
    } while (cursor.consume(COMMA));
    return cursor.consume(CLOSE_BRACE);
  }
}

/** The scanner's state right after the first choice's delta key; positions from the chunk's start. */
interface PrefixState {
  readonly seenModel: boolean;
  readonly modelStart: number;
  readonly modelEnd: number;
  readonly seenId: boolean;
  readonly idStart: number;
  readonly idEnd: number;
  readonly seenCreated: boolean;
  readonly createdStart: number;
  readonly createdEnd: number;
  readonly finishReason: string | undefined;
  readonly seenFinishReason: boolean;
}

/** A position from a chunk's start as a position in the text (-1: none). */
function at(base: number, offset: number): number {
  return offset === -1 ? -1 : base + offset;
}

/** A position in the text as one from the chunk's start (-1: none). */
function from(base: number, position: number): number {
  return position === -1 ? -1 : position - base;
}

/** A copy of `text` that does not keep the string it was sliced from (the network chunk) alive. */
function copyOf(text: string): string {
  return `${text} `.slice(0, -1);
}

/** An object key without escapes, and its colon. */
function readKey(cursor: JsonCursor): boolean {
  return cursor.readString() !== -1 && !cursor.stringEscaped && cursor.consume(COLON);
}

/** A string value's decoded length, 0 for any other valid value (it counts as no text), -1 when invalid. */
function readStringLength(cursor: JsonCursor): number {
  if (cursor.peek() === 34 /* " */) return cursor.readString();
  return cursor.skipValue() ? 0 : -1;
}
