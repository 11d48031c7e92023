import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The README as a newcomer reads it: its first screen gives the two commands that matter, its
 * contents list every section, and every link and every page it refers to resolves in the
 * repository (design.md used to be named five times and shipped nowhere).
 */
const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const readme = read('README.md');

/** Headings outside code blocks, with GitHub's anchors (duplicates numbered -1, -2, ...). */
function headings(markdown: string): { level: number; text: string; anchor: string }[] {
  const seen = new Map<string, number>();
  const found: { level: number; text: string; anchor: string }[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.trimStart().startsWith('```')) {
      fenced = !fenced;
      continue;
    }
    const match = fenced ? null : /^(#{1,6}) (.+)$/.exec(line);
    if (!match) continue;
    const base = match[2].trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.push({ level: match[1].length, text: match[2], anchor: count === 0 ? base : `${base}-${count}` });
  }
  return found;
}

/** Markdown links outside code blocks. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
}

it('opens with the two commands that matter', () => {
  const firstScreen = readme.split('\n').slice(0, 15).join('\n');
  expect(firstScreen).toContain('npm ci && npm start');
  expect(firstScreen).toMatch(/^npm test\s/m);
});

it('lists every section in its contents, in order, with anchors that resolve', () => {
  const all = headings(readme);
  const contents = readme.slice(readme.indexOf('## Contents'), readme.indexOf('\n## ', readme.indexOf('## Contents') + 1));
  const listed = [...contents.matchAll(/^( *)- \[(.+)\]\(#(.+)\)$/gm)].map((match) => ({ level: match[1] === '' ? 2 : 3, text: match[2], anchor: match[3] }));
  const expected = all.filter((heading) => (heading.level === 2 || heading.level === 3) && heading.text !== 'Contents');
  expect(listed).toEqual(expected);
  expect(readme).toContain('## Getting started (five minutes)');
});

it('refers only to files and anchors that exist, design.md in docs/ included', () => {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    if (!anchorsOf.has(file)) anchorsOf.set(file, new Set(headings(read(file)).map((heading) => heading.anchor)));
    return anchorsOf.get(file)!;
  };
  for (const [file, text] of [['README.md', readme], ['docs/design.md', read('docs/design.md')]] as const) {
    for (const link of links(text)) {
      if (/^[a-z]+:/.test(link)) continue;
      const [target, anchor] = link.split('#');
      const resolved = target === '' ? file : path.normalize(path.join(path.dirname(file), target));
      expect([link, existsSync(path.join(root, resolved))]).toEqual([link, true]);
      if (anchor !== undefined && resolved.endsWith('.md')) expect([link, anchors(resolved).has(anchor)]).toEqual([link, true]);
    }
  }
  // Every mention of design.md is the shipped one, as a link.
  expect(readme.match(/(?<!docs\/)design\.md/g)).toBeNull();
  expect(existsSync(path.join(root, 'docs/api-spec.md'))).toBe(true);
});

it('needs nothing the README says need not be installed (no jq in its commands)', () => {
  expect(readme).toContain('Nothing else to install');
  expect(readme).not.toMatch(/\|\s*jq\b/);
});
