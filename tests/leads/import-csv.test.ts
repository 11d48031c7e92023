import { csvItems, PARSE_SLICE_CHARS, type CsvItem } from '../../src/modules/leads/lead.import.csv';
import { slices, textSource } from '../../src/modules/leads/lead.import.source';

/**
 * The file is read in pieces (upload chunks, stored pieces, parse slices): however it is cut,
 * it gives the same records, with their lines, malformed rows in their place, and every
 * character whole (an emoji is two UTF-16 units, and a cut between them would spoil it).
 */
async function read(pieces: Iterable<string>): Promise<CsvItem[]> {
  const items: CsvItem[] = [];
  for await (const item of csvItems((async function* () { yield* pieces; })())) items.push(item);
  return items;
}

it('the same records however the text is cut, emoji whole at every slice boundary', async () => {
  // The emoji's two halves straddle the parse slice's boundary, and cells carry line breaks.
  const filler = 'x'.repeat(PARSE_SLICE_CHARS - 'phone,name\n+5511987650001,'.length - 1);
  const lines = ['phone,name', `+5511987650001,${filler}😀`, '+5511987650002,"two\nlines 🎉"', '+5511987650003,"unclosed', '+5511987650004,ok'];
  const text = `\uFEFF${lines.join('\n')}\n`;
  const whole = await read([text]);
  expect(whole[0]).toEqual({ line: 1, cells: ['phone', 'name'] });
  expect(whole[1]).toEqual({ line: 2, cells: ['+5511987650001', `${filler}😀`] });
  expect(whole[2]).toEqual({ line: 3, cells: ['+5511987650002', 'two\nlines 🎉'] });
  for (const size of [1, 2, 7, 1000, PARSE_SLICE_CHARS - 1]) expect(await read(slices(text, size))).toEqual(whole);
  // The source's own pieces are cut the same way.
  const pieces: string[] = [];
  for await (const piece of textSource('csv', text).text()) pieces.push(piece);
  expect(pieces.join('')).toBe(text);
  // A cut that would split a pair takes the pair whole.
  expect([...slices('a😀b', 2)]).toEqual(['a😀', 'b']);
});
