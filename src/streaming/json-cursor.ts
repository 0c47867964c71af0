const QUOTE = 34;
const BACKSLASH = 92;
const MAX_DEPTH = 32;

/**
 * Walks the text of one JSON value without building it, for a caller that only needs a
 * few facts from it. Every method answers false or -1 when the text is not what it
 * expects, and the caller then falls back to `JSON.parse`; so the cursor only has to be
 * right about text it accepts: whatever it walks through is valid JSON (RFC 8259 grammar,
 * as `JSON.parse` reads it).
 */
export class JsonCursor {
  text = '';
  position = 0;
  /** Of the last string read: where its characters start and end (quotes excluded), whether it had escapes. */
  stringStart = 0;
  stringEnd = 0;
  stringEscaped = false;
  /** Position of the next backslash at or after the last one looked for; -1: none left. */
  private nextBackslash = -1;

  /**
   * Starts on `text` at `position`. Walking on through the same text (one event after
   * another in a batch), the next backslash found before is still the next one when it
   * lies ahead, and none is left when none was: the text is not searched again.
   */
  reset(text: string, position: number): void {
    const known = this.nextBackslash;
    if (text !== this.text || position < this.position || (known !== -1 && known < position)) this.nextBackslash = text.indexOf('\\', position);
    this.text = text;
    this.position = position;
  }

  /** Skips whitespace and reports the next character's code (NaN at the end). */
  peek(): number {
    const text = this.text;
    let position = this.position;
    let code = text.charCodeAt(position);
    while (code === 32 || code === 9 || code === 10 || code === 13) code = text.charCodeAt(++position);
    this.position = position;
    return code;
  }

  /** Skips whitespace and `code` if it comes next. */
  consume(code: number): boolean {
    if (this.peek() !== code) return false;
    this.position++;
    return true;
  }

  /**
   * Reads a string (whitespace first); answers its length once decoded, as the parsed
   * JavaScript string's `length` (an escape counts as one UTF-16 unit), or -1.
   */
  readString(): number {
    if (this.peek() !== QUOTE) return -1;
    const text = this.text;
    let position = this.position + 1;
    this.stringStart = position;
    this.stringEscaped = false;
    let length = 0;
    for (;;) {
      const quote = text.indexOf('"', position);
      if (quote === -1) return -1;
      let backslash = this.nextBackslash;
      if (backslash !== -1 && backslash < position) backslash = this.nextBackslash = text.indexOf('\\', position);
      if (backslash === -1 || backslash > quote) {
        if (hasControlCharacter(text, position, quote)) return -1;
        this.stringEnd = quote;
        this.position = quote + 1;
        return length + quote - position;
      }
      this.stringEscaped = true;
      if (hasControlCharacter(text, position, backslash)) return -1;
      length += backslash - position + 1;
      const escaped = text.charCodeAt(backslash + 1);
      if (escaped === 117 /* u */) {
        if (!isHex(text.charCodeAt(backslash + 2)) || !isHex(text.charCodeAt(backslash + 3)) || !isHex(text.charCodeAt(backslash + 4)) || !isHex(text.charCodeAt(backslash + 5))) return -1;
        position = backslash + 6;
      } else if (isSingleEscape(escaped)) {
        position = backslash + 2;
      } else {
        return -1;
      }
      this.nextBackslash = text.indexOf('\\', position);
    }
  }

  /** The last string read, without escapes, is `word`. */
  stringIs(word: string): boolean {
    return !this.stringEscaped && this.stringEnd - this.stringStart === word.length && this.text.startsWith(word, this.stringStart);
  }

  /** Reads `null` if it comes next. */
  readNull(): boolean {
    if (this.peek() !== 110 /* n */ || !this.text.startsWith('null', this.position)) return false;
    this.position += 4;
    return true;
  }

  /** Skips one value of any kind, nested at most a few levels deep. */
  skipValue(depth = 0): boolean {
    const code = this.peek();
    if (code === QUOTE) return this.readString() !== -1;
    if (code === 123 /* { */) return this.skipObject(depth + 1);
    if (code === 91 /* [ */) return this.skipArray(depth + 1);
    if (code === 110 /* n */) return this.skipWord('null');
    if (code === 116 /* t */) return this.skipWord('true');
    if (code === 102 /* f */) return this.skipWord('false');
    return this.readNumber();
  }

  private skipObject(depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    this.position++;
    if (this.consume(125 /* } */)) return true;
    do {
      if (this.readString() === -1 || !this.consume(58 /* : */) || !this.skipValue(depth)) return false;
    } while (this.consume(44 /* , */));
    return this.consume(125 /* } */);
  }

  private skipArray(depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    this.position++;
    if (this.consume(93 /* ] */)) return true;
    do {
      if (!this.skipValue(depth)) return false;
    } while (this.consume(44 /* , */));
    return this.consume(93 /* ] */);
  }

  private skipWord(word: string): boolean {
    if (!this.text.startsWith(word, this.position)) return false;
    this.position += word.length;
    return true;
  }

  /** Reads a number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` (whitespace first). */
  readNumber(): boolean {
    this.peek();
    const text = this.text;
    let position = this.position;
    if (text.charCodeAt(position) === 45 /* - */) position++;
    if (text.charCodeAt(position) === 48 /* 0 */) position++;
    else if (isDigit(text.charCodeAt(position))) position = skipDigits(text, position);
    else return false;
    if (text.charCodeAt(position) === 46 /* . */) {
      if (!isDigit(text.charCodeAt(position + 1))) return false;
      position = skipDigits(text, position + 1);
    }
    const exponent = text.charCodeAt(position);
    if (exponent === 101 || exponent === 69 /* e E */) {
      position++;
      const sign = text.charCodeAt(position);
      if (sign === 43 || sign === 45 /* + - */) position++;
      if (!isDigit(text.charCodeAt(position))) return false;
      position = skipDigits(text, position);
    }
    this.position = position;
    return true;
  }
}

/** JSON.parse refuses a raw control character (U+0000 to U+001F) inside a string. */
function hasControlCharacter(text: string, start: number, end: number): boolean {
  for (let position = start; position < end; position++) if (text.charCodeAt(position) < 32) return true;
  return false;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function skipDigits(text: string, position: number): number {
  while (isDigit(text.charCodeAt(position))) position++;
  return position;
}

function isHex(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 102) || (code >= 65 && code <= 70);
}

/** `\" \\ \/ \b \f \n \r \t` */
function isSingleEscape(code: number): boolean {
  return code === QUOTE || code === BACKSLASH || code === 47 || code === 98 || code === 102 || code === 110 || code === 114 || code === 116;
}
