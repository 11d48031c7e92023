/**
 * A minimal valid PDF made here: one page per entry, each line of it a text object in Helvetica
 * (WinAnsiEncoding: Latin-1, so Portuguese's accents), the cross-reference table's offsets
 * computed. A page with no lines has no text layer, as a scan's.
 */
export function pdf(pages: string[][]): Buffer {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string) => objects.push(Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'));
  const pageIds = pages.map((_, i) => 4 + i * 2);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`);
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  for (const [i, lines] of pages.entries()) {
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${pageIds[i] + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`);
    const escape = (line: string) => line.replace(/[\\()]/g, (c) => `\\${c}`);
    const content = Buffer.from(lines.length ? `BT /F1 12 Tf 72 720 Td ${lines.map((line, n) => `${n ? '0 -20 Td ' : ''}(${escape(line)}) Tj`).join(' ')} ET` : '', 'latin1');
    add(Buffer.concat([Buffer.from(`<< /Length ${content.length} >>\nstream\n`), content, Buffer.from('\nendstream')]));
  }
  const parts = [Buffer.from('%PDF-1.4\n')];
  let offset = parts[0].length;
  const offsets: number[] = [];
  for (const [i, body] of objects.entries()) {
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    offsets.push(offset);
    parts.push(object);
    offset += object.length;
  }
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('')}` +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(xref, 'latin1')]);
}
