import type { ApiError } from '../api/client';

/** The API's refusal, in its own words, announced to screen readers. */
export function ErrorNotice({ error }: { error: ApiError | null | undefined }) {
  if (!error) return null;
  return (
    <p className="notice notice-error" role="alert">
      {error.message}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p aria-busy="true" className="loading">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: unknown }) {
  return <p className="empty">{children as string}</p>;
}
