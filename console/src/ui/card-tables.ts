import { useEffect, type RefObject } from 'react';

/** Where tables are cards: the media query of styles.css's "Phones". */
const CARDS_MEDIA = '(max-width: 37.5rem)';

/**
 * Tables read as cards on a phone (styles.css, "Tables as cards", under "Phones"): each cell of
 * a data row gets its column's header as `data-label`, which the narrow layout shows before the
 * value. Done here, once, for every table with a header row under `root` (DataTable's and the
 * pages' own), as they render and change, so no page labels its cells by hand and a new page's
 * tables follow. The tables keep their elements; the explicit roles keep them tables for screen
 * readers in browsers that drop a table's semantics once it is displayed as blocks (Safari).
 */
export function useCardTables(root: RefObject<HTMLElement>): void {
  useEffect(() => {
    const element = root.current;
    if (!element) return;
    // Only while tables are cards: a wide screen (a busy campaign's page) pays nothing for it.
    const narrow = matchMedia(CARDS_MEDIA);
    let observer: MutationObserver | null = null;
    let frame = 0;
    const label = () => {
      frame = 0;
      for (const table of element.querySelectorAll('table')) labelTable(table);
    };
    const stop = () => {
      observer?.disconnect();
      observer = null;
      if (frame) cancelAnimationFrame(frame);
      frame = 0;
    };
    const follow = () => {
      if (!narrow.matches) return stop();
      if (observer) return;
      label();
      // Rows come and go with data (subscriptions, paging): labelled again once per frame at most.
      // Only children and text are watched: the attributes set here do not wake the observer.
      observer = new MutationObserver(() => {
        frame ||= requestAnimationFrame(label);
      });
      observer.observe(element, { childList: true, subtree: true, characterData: true });
    };
    follow();
    narrow.addEventListener('change', follow);
    return () => {
      narrow.removeEventListener('change', follow);
      stop();
    };
  }, [root]);
}

function labelTable(table: HTMLTableElement): void {
  const head = table.tHead?.rows[0];
  if (!head) return;
  // The header's text by column index, spans counted.
  const names: string[] = [];
  for (const cell of head.cells) {
    const name = headerName(cell);
    for (let i = 0; i < cell.colSpan; i++) names.push(name);
  }
  table.classList.add('card-table');
  set(table, 'role', 'table');
  set(table.tHead!, 'role', 'rowgroup');
  set(head, 'role', 'row');
  for (const cell of head.cells) set(cell, 'role', 'columnheader');
  for (const body of table.tBodies) {
    set(body, 'role', 'rowgroup');
    for (const row of body.rows) {
      set(row, 'role', 'row');
      let column = 0;
      for (const cell of row.cells) {
        set(cell, 'role', cell.tagName === 'TH' ? 'rowheader' : 'cell');
        // A cell spanning the whole row is a detail under it (a lead's calls): it has no one column.
        const name = cell.colSpan === 1 ? names[column] : '';
        if (name) set(cell, 'data-label', name);
        else if (cell.hasAttribute('data-label')) cell.removeAttribute('data-label');
        column += cell.colSpan;
      }
    }
  }
}

/**
 * A header cell's name as a label: its `data-label` when it gives one, else its text without
 * what is not its name (a tooltip's button and text, as the calls list's Status has).
 */
function headerName(cell: HTMLTableCellElement): string {
  const given = cell.getAttribute('data-label');
  if (given !== null) return given;
  let text = '';
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement?.closest('button, [role="tooltip"]')) text += node.textContent;
  }
  return text.replace(/\s+/g, ' ').trim();
}

function set(element: Element, name: string, value: string): void {
  if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}
