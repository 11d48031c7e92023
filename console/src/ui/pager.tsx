import { formatCount } from './format';

interface PageInfo {
  current_page: number;
  last_page: number;
  total: number;
  from?: number | null;
  to?: number | null;
}

/** Previous / next for a page type of the API ({current_page, last_page, total, from, to}). */
export function Pager({ page, onPage, label }: { page: PageInfo | undefined; onPage: (page: number) => void; label: string }) {
  if (!page) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <span>
        {page.total === 0 ? 'None' : `${formatCount(page.from)}–${formatCount(page.to)} of ${formatCount(page.total)}`}
      </span>
      <div role="group">
        <button type="button" className="secondary outline" disabled={page.current_page <= 1} onClick={() => onPage(page.current_page - 1)}>
          Previous
        </button>
        <button type="button" className="secondary outline" disabled={page.current_page >= page.last_page} onClick={() => onPage(page.current_page + 1)}>
          Next
        </button>
      </div>
    </nav>
  );
}
