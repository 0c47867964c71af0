// Issue 17 item 6: the documentation is a short README plus docs/ by topic, and no link in
// them leads nowhere. Every relative link in README.md, docs/*.md and the folder READMEs
// must name an existing file, and every #anchor a heading of its target (GitHub's slugs).
// No network: links with a scheme (https:, mailto:) are not followed.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const README_MAX_LINES = 300;

/** README.md, every .md under docs/, and every README.md under src/. */
function documents(): string[] {
  const docs = join(ROOT, 'docs');
  const inDocs = existsSync(docs) ? walk(docs).filter((file) => file.endsWith('.md')) : [];
  const folderReadmes = walk(join(ROOT, 'src')).filter((file) => file.endsWith('/README.md'));
  return [join(ROOT, 'README.md'), ...inDocs, ...folderReadmes];
}

function walk(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? walk(path) : [path];
  });
}

/** The text outside fenced code blocks (their lines left empty). */
function withoutFences(markdown: string): string {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      lines.push('');
    } else if (marker !== undefined) {
      fence = marker;
      lines.push('');
    } else {
      lines.push(line);
    }
  }
  return lines.join('\n');
}

/** The text outside fenced code blocks and inline code spans, where links are links. */
function proseOf(markdown: string): string {
  return withoutFences(markdown).replace(/(`+)[^`]*?\1/g, '');
}

/** Inline links and images `[text](target)` and reference definitions `[label]: target`. */
export function linkTargets(markdown: string): string[] {
  const prose = proseOf(markdown);
  const inline = [...prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (match) => match[1] ?? '',
  );
  const definitions = [...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1] ?? '');
  return [...inline, ...definitions];
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor a markdown file offers: its headings' slugs, repeats numbered -1, -2…, and explicit ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutFences(markdown).matchAll(/^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/gm)) {
    const slug = githubSlug(match[1] ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1] ?? '');
  return anchors;
}

/** The problems of one document's links: targets that do not exist, anchors no heading makes. */
export function brokenLinks(file: string, markdown: string): string[] {
  const problems: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const targetFile = pathPart === '' ? file : resolve(dirname(file), pathPart);
    if (!existsSync(targetFile)) {
      problems.push(`${target}: no such file`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(targetFile).isDirectory() || !targetFile.endsWith('.md')) {
      problems.push(`${target}: an anchor into a file that is not markdown`);
      continue;
    }
    const text = targetFile === file ? markdown : readFileSync(targetFile, 'utf8');
    if (!anchorsOf(text).has(anchor)) problems.push(`${target}: no heading makes #${anchor}`);
  }
  return problems;
}

describe('documentation links', () => {
  it('every relative link names an existing file and every anchor an existing heading', () => {
    const problems = documents().flatMap((file) =>
      brokenLinks(file, readFileSync(file, 'utf8')).map((problem) => `${relative(ROOT, file)}: ${problem}`),
    );
    assert.deepEqual(problems, []);
  });

  it('finds a broken file, a broken anchor and a good anchor as such', () => {
    const file = join(ROOT, 'README.md');
    const markdown = [
      '# Title',
      '## A `code` heading, with punctuation!',
      '## Repeat',
      '## Repeat',
      '[ok](#a-code-heading-with-punctuation) [ok](#repeat-1) [bad](#repeat-2)',
      '[gone](docs/no-such-file.md) [ok](package.json) `[not a link](nowhere.md)`',
      '```',
      '[not a link either](nowhere.md)',
      '```',
      '[web](https://example.com/x)',
    ].join('\n');
    assert.deepEqual(brokenLinks(file, markdown), [
      '#repeat-2: no heading makes #repeat-2',
      'docs/no-such-file.md: no such file',
    ]);
  });

  it(`README.md is at most ${README_MAX_LINES} lines and links every topic in docs/`, () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const lines = readme.endsWith('\n') ? readme.split('\n').length - 1 : readme.split('\n').length;
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines`);
    const linked = new Set(linkTargets(readme).map((target) => target.split('#')[0]));
    const topics = [
      'configuration',
      'keys-and-money',
      'routing-and-failover',
      'protocols',
      'operations',
      'several-instances',
      'security-and-limits',
      'architecture',
      'performance',
    ];
    const missing = topics
      .map((topic) => `docs/${topic}.md`)
      .filter((path) => !linked.has(path) || !existsSync(join(ROOT, path)));
    assert.deepEqual(missing, []);
  });
});
