import { CHUNK_CHARS, CHUNK_OVERLAP } from './knowledge.rules';

/**
 * A document's text as it is searched: Unicode NFC (a composed "ç" and "c" + combining cedilla
 * are one word), line ends as "\n", runs of spaces and tabs as one space, lines trimmed, and at
 * most one empty line between paragraphs.
 */
export function normaliseText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A piece of the text that is never split: a sentence (or a part of one too long for a chunk), and what came before it. */
interface Piece {
  text: string;
  /** What joins it to the piece before: a paragraph break or a space. */
  joiner: '\n\n' | '\n' | ' ';
}

/** The end of a sentence: its mark, then white space (kept out of both sentences). */
const SENTENCE_END = /(?<=[.!?…:;])\s+/u;

/** Pieces of at most `max` characters: a piece longer than that is cut at its last space, else hard (never inside a surrogate pair). */
function cut(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let at = rest.lastIndexOf(' ', max);
    if (at <= max / 2) {
      at = max;
      const code = rest.charCodeAt(at - 1);
      if (code >= 0xd800 && code <= 0xdbff) at--;
    }
    parts.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) parts.push(rest);
  return parts;
}

function piecesOf(text: string, max: number): Piece[] {
  const pieces: Piece[] = [];
  text.split('\n\n').forEach((paragraph, p) => {
    paragraph.split('\n').forEach((line, l) => {
      line.split(SENTENCE_END).forEach((sentence, s) => {
        cut(sentence, max).forEach((part, c) => {
          const joiner = c > 0 || s > 0 ? ' ' : l > 0 ? '\n' : p > 0 ? '\n\n' : ' ';
          pieces.push({ text: part, joiner });
        });
      });
    });
  });
  return pieces.filter((piece) => piece.text.length > 0);
}

/** The end of a chunk that the next one starts with: its last sentences within `overlap` characters, else its last words. */
function tailOf(chunk: string, overlap: number): string {
  if (overlap <= 0) return '';
  if (chunk.length <= overlap) return chunk;
  const tail = chunk.slice(chunk.length - overlap);
  const sentence = tail.search(SENTENCE_END);
  if (sentence >= 0) {
    const start = tail.slice(sentence).trimStart();
    if (start) return start;
  }
  const space = tail.indexOf(' ');
  return space >= 0 ? tail.slice(space + 1) : '';
}

/**
 * The chunks of a normalised text: pieces (sentences, cut when longer than a chunk) packed in
 * order into chunks of at most `size` characters; each chunk after the first starts with the
 * last sentence(s), or failing that the last words, of the one before, up to `overlap`
 * characters, so that a fact on a chunk's edge is whole in one of them.
 */
export function chunkText(text: string, size: number = CHUNK_CHARS, overlap: number = CHUNK_OVERLAP): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const piece of piecesOf(text, size)) {
    if (!current) {
      current = piece.text;
      continue;
    }
    const joined = `${current}${piece.joiner}${piece.text}`;
    if (joined.length <= size) {
      current = joined;
      continue;
    }
    chunks.push(current);
    const tail = tailOf(current, overlap);
    current = tail && tail.length + 1 + piece.text.length <= size ? `${tail} ${piece.text}` : piece.text;
  }
  if (current) chunks.push(current);
  return chunks;
}
