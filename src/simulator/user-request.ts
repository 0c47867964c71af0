/**
 * What the user's last message asks for, as far as the simulator's default behaviour
 * understands it: the user's own words (without the context blocks agents wrap in tags, such
 * as Claude Code's `<system-reminder>` or Codex's `<environment_context>`), the file it names
 * and the command it quotes. Everything here is linear in the message's length.
 */

/** Longest file name or command taken from a message; longer ones are not recognised. */
const MAX_NAME_CHARACTERS = 1024;

/** What the last user message asks for. */
export interface UserRequest {
  /** The user's own words. */
  readonly words: string;
  /** The first file the words name (`notes.txt`, `src/main.ts`, `/etc/hosts`), if any. */
  readonly file: string | undefined;
  /** The first command the words quote in backticks after "run" (`run \`ls -la\``), if any. */
  readonly command: string | undefined;
}

/**
 * The text without `<tag>…</tag>` blocks. A tag whose closing tag is missing is kept as
 * text; a name found unclosed once is not searched for again, so the scan stays linear.
 */
export function withoutTaggedBlocks(text: string): string {
  const opening = /<([A-Za-z][\w-]{0,63})>/g;
  const unclosed = new Set<string>();
  let kept = '';
  let from = 0;
  for (let match = opening.exec(text); match !== null; match = opening.exec(text)) {
    const name = match[1] ?? '';
    if (unclosed.has(name)) continue;
    const close = text.indexOf(`</${name}>`, opening.lastIndex);
    if (close === -1) {
      unclosed.add(name);
      continue;
    }
    kept += text.slice(from, match.index);
    from = close + name.length + 3;
    opening.lastIndex = from;
  }
  return (kept + text.slice(from)).trim();
}

/** A word that names a file: a path with a slash, or a name with an extension (not `e.g`). */
function asFileName(word: string): string | undefined {
  const name = word
    .replace(/^[`'"(<[]+/, '')
    .replace(/[`'")>\],:;!?]+$/, '')
    .replace(/\.+$/, '');
  if (name.length === 0 || name.length > MAX_NAME_CHARACTERS || name.includes('://')) return undefined;
  if (!/^[\w~./-]+$/.test(name)) return undefined;
  const hasSlash = name.includes('/') && /[\w]/.test(name);
  const extension = /^(?:.*\/)?[\w-][\w.-]*\.([A-Za-z0-9]{1,8})$/.exec(name);
  const abbreviation = /^(?:[A-Za-z]\.)+[A-Za-z]$/.test(name);
  return hasSlash || (extension !== null && !abbreviation) ? name : undefined;
}

/** The first backtick-quoted command after the word "run". */
function quotedCommand(words: string): string | undefined {
  const match = /\brun\b[^`]{0,40}`([^`\n]{1,1024})`/i.exec(words);
  return match?.[1]?.trim() || undefined;
}

/** Reads the request out of the last user message's text. */
export function readUserRequest(lastUserText: string): UserRequest {
  const words = withoutTaggedBlocks(lastUserText);
  let file: string | undefined;
  for (const word of words.split(/\s+/)) {
    file = asFileName(word);
    if (file !== undefined) break;
  }
  return { words, file, command: quotedCommand(words) };
}

/** Whether the words name `name` as a whole word (case-sensitive: `Read`, `read_file`). */
export function namesTool(words: string, name: string): boolean {
  let at = words.indexOf(name);
  while (at !== -1) {
    const before = words[at - 1];
    const after = words[at + name.length];
    if ((before === undefined || !/[\w-]/.test(before)) && (after === undefined || !/[\w-]/.test(after))) return true;
    at = words.indexOf(name, at + 1);
  }
  return false;
}
