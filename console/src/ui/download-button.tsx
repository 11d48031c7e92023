import { useState } from 'react';
import { ApiError } from '../api/client';
import { download } from '../api/rest';
import { ErrorNotice } from './notice';

/** A button that downloads a file of the API (an authenticated fetch, then a Blob), with the API's refusal under it. */
export function DownloadButton({ path, fileName, children, label }: { path: string; fileName: string; children: string; label?: string }) {
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  async function run() {
    setRunning(true);
    setError(null);
    setDone(null);
    try {
      const file = await download(path, fileName);
      setDone(`Downloaded ${file.name}.`);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError([], 'The download stopped before the end. Try again.'));
    } finally {
      setRunning(false);
    }
  }
  return (
    <span className="download">
      <button type="button" className="secondary" aria-label={label} aria-busy={running ? 'true' : undefined} disabled={running} onClick={run}>
        {children}
      </button>
      <span className="visually-hidden" role="status">
        {done ?? ''}
      </span>
      <ErrorNotice error={error} />
    </span>
  );
}
