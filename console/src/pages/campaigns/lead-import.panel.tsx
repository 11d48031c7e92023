import { useState } from 'react';
import { ApiError, request } from '../../api/client';
import { fieldMessage } from '../../api/english';
import { useSubscription } from '../../api/hooks';
import { postForm } from '../../api/rest';
import type { ConsoleLeadImportFieldsFragment } from '../../gql/graphql';
import { formatCount } from '../../ui/format';
import { ErrorNotice } from '../../ui/notice';
import { readHead, toMapping, utf8Text, type ColumnChoice, type TargetKind } from './lead-import.csv';
import { ImportLeadsDocument, LeadImportLiveDocument } from './lead-import.operations';

type LeadImport = ConsoleLeadImportFieldsFragment;

/**
 * /graphql's body limit by default (MAX_BODY_BYTES, 1 MB). A file whose request would be
 * larger goes as multipart to POST /api/user/leads/import, which takes up to MAX_IMPORT_BYTES;
 * a server configured lower answers PAYLOAD_TOO_LARGE, and the file goes as multipart then too.
 */
const GRAPHQL_BODY_BYTES = 1024 * 1024;

const KINDS: { value: TargetKind; label: string }[] = [
  { value: 'phone', label: 'Phone number' },
  { value: 'variable', label: 'Variable' },
  { value: 'ignore', label: 'Leave out' },
];

/** Starts the import: over GraphQL when the file fits its body, else (or when refused as too large) as multipart. */
async function startImport(campaignId: number, file: File, mapping: Record<string, string | null> | null): Promise<LeadImport> {
  const text = file.size < GRAPHQL_BODY_BYTES ? await utf8Text(file) : null;
  if (text !== null) {
    const input = { campaign_id: campaignId, csv: text, ...(mapping ? { mapping } : {}) };
    // The JSON escapes (a quote, a line break) make the body larger than the file.
    if (new Blob([JSON.stringify(input)]).size < GRAPHQL_BODY_BYTES - 4096) {
      try {
        return (await request(ImportLeadsDocument, { input })).importLeads;
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'PAYLOAD_TOO_LARGE') throw error;
      }
    }
  }
  const form = new FormData();
  form.set('campaign_id', String(campaignId));
  if (mapping) form.set('mapping', JSON.stringify(mapping));
  form.set('file', file, file.name);
  return (await postForm<{ data: LeadImport }>('/user/leads/import', form)).data;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * "Import CSV": a file, its columns mapped (the API's defaults first), then the import's
 * progress live from leadImportUpdated and, once done, the rows it refused with their line.
 * `onProgress` runs after each committed batch (the page's counts and list then move).
 */
export function LeadImportPanel({ campaignId, onProgress, onClose }: { campaignId: number; onProgress: (state: LeadImport) => void; onClose: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [columns, setColumns] = useState<ColumnChoice[]>([]);
  const [reading, setReading] = useState(false);
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [job, setJob] = useState<LeadImport | null>(null);

  const liveError = useSubscription(
    LeadImportLiveDocument,
    { id: job?.id ?? 0 },
    (data) => {
      setJob(data.leadImportUpdated);
      onProgress(data.leadImportUpdated);
    },
    { skip: !job },
  );

  async function pick(event: any) {
    const picked: File | undefined = event.target.files?.[0];
    setError(null);
    setFile(picked ?? null);
    setColumns([]);
    if (!picked) return;
    setReading(true);
    try {
      setColumns(await readHead(picked));
    } finally {
      setReading(false);
    }
  }

  async function submit(event: any) {
    event.preventDefault();
    if (!file) {
      setError(new ApiError([], 'Choose a CSV file first.'));
      return;
    }
    setStarting(true);
    setError(null);
    try {
      setJob(await startImport(campaignId, file, toMapping(columns)));
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError([], String(caught)));
    } finally {
      setStarting(false);
    }
  }

  if (job) return <ImportProgress job={job} liveError={liveError} onAgain={() => (setJob(null), setFile(null), setColumns([]))} onClose={onClose} />;

  const fileErrors = [...(error?.fields.csv ?? []), ...(error?.fields.file ?? []), ...(error?.fields.mapping ?? [])];
  const otherFields = error && Object.keys(error.fields).some((name) => !/^(csv|file|mapping)/.test(name));
  const hasPhone = columns.some((column) => column.kind === 'phone');
  const set = (index: number, change: Partial<ColumnChoice>) => setColumns(columns.map((column, at) => (at === index ? { ...column, ...change } : column)));
  return (
    <form className="panel import-panel" onSubmit={submit} noValidate aria-label="Import leads from CSV">
      <h3>Import leads from a CSV file</h3>
      <p className="muted small">
        UTF-8, a header row first. Each row is checked as “Add lead” checks it; numbers the campaign already has count as duplicates, numbers on the do-not-call list are
        created blacklisted.
      </p>
      {error && (fileErrors.length === 0 || otherFields) && <ErrorNotice error={error} />}
      <div className="field">
        <label htmlFor="import-file">CSV file</label>
        <input
          id="import-file"
          type="file"
          accept=".csv,text/csv"
          onChange={pick}
          aria-invalid={fileErrors.length ? 'true' : undefined}
          aria-describedby={fileErrors.length ? 'import-file-error' : 'import-file-hint'}
        />
        {fileErrors.length ? (
          <small id="import-file-error" className="field-error">
            {fileErrors.join(' ')}
          </small>
        ) : (
          <small id="import-file-hint">{file ? `${file.name}, ${formatBytes(file.size)}` : 'A column named like phone, telefone or celular, or holding phone numbers, is the number; every other column becomes a variable.'}</small>
        )}
      </div>
      {reading && <p aria-busy="true">Reading the file’s columns…</p>}
      {columns.length > 0 && (
        <fieldset className="import-mapping">
          <legend>Columns</legend>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Column</th>
                  <th scope="col">First row</th>
                  <th scope="col">Goes to</th>
                  <th scope="col">Variable name</th>
                </tr>
              </thead>
              <tbody>
                {columns.map((column, index) => {
                  const problems = error?.fields[`mapping.${column.column.trim()}`];
                  const label = column.column.trim() || `column ${index + 1}`;
                  return (
                    <tr key={index} data-column={column.column}>
                      <th scope="row" className="mono">
                        {label}
                      </th>
                      <td className="mono">{column.sample || '—'}</td>
                      <td>
                        <select
                          aria-label={`Where ${label} goes`}
                          value={column.kind}
                          aria-invalid={problems ? 'true' : undefined}
                          aria-describedby={problems ? `import-column-${index}-error` : undefined}
                          onChange={(event: any) => set(index, { kind: event.target.value })}
                        >
                          {KINDS.map((kind) => (
                            <option key={kind.value} value={kind.value}>
                              {kind.label}
                            </option>
                          ))}
                        </select>
                        {problems && (
                          <small id={`import-column-${index}-error`} className="field-error">
                            {problems.join(' ')}
                          </small>
                        )}
                      </td>
                      <td>
                        {column.kind === 'variable' && <input type="text" aria-label={`Variable name for ${label}`} value={column.name} onChange={(event: any) => set(index, { name: event.target.value })} />}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </fieldset>
      )}
      {file && !reading && !hasPhone && (
        <p id="import-no-phone" className="notice notice-error">
          No column holds the phone number: choose “Phone number” for the column that does.
        </p>
      )}
      <div className="form-actions">
        <button type="submit" disabled={!file || reading || !hasPhone} aria-busy={starting ? 'true' : undefined} aria-describedby={file && !reading && !hasPhone ? 'import-no-phone' : undefined}>
          Start import
        </button>
        <button type="button" className="secondary outline" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}

const FINAL = new Set(['done', 'failed']);

function ImportProgress({ job, liveError, onAgain, onClose }: { job: LeadImport; liveError: ApiError | null; onAgain: () => void; onClose: () => void }) {
  const finished = FINAL.has(job.status);
  const summary = finished
    ? job.status === 'failed'
      ? `Import stopped after ${formatCount(job.rows_read)} of ${formatCount(job.rows_total)} rows.`
      : `Imported ${formatCount(job.rows_total)} rows.`
    : `${job.status === 'queued' ? 'Waiting to start' : 'Importing'}: ${formatCount(job.rows_read)} of ${formatCount(job.rows_total)} rows read.`;
  return (
    <section className="panel import-panel" aria-label="Lead import" data-import={job.id} data-import-status={job.status}>
      <h3>Lead import #{job.id}</h3>
      <div className="progress-line">
        <progress value={job.rows_read} max={Math.max(job.rows_total, 1)} aria-label={`Rows read: ${job.rows_read} of ${job.rows_total}`} />
        <span className="progress-text" role="status">
          {summary}
        </span>
      </div>
      <dl className="counts import-counts">
        {(
          [
            ['rows_read', 'rows read', `${formatCount(job.rows_read)} / ${formatCount(job.rows_total)}`],
            ['created', 'created', formatCount(job.created)],
            ['duplicates', 'duplicates', formatCount(job.duplicates)],
            ['blacklisted', 'blacklisted', formatCount(job.blacklisted)],
            ['invalid', 'invalid', formatCount(job.invalid)],
          ] as const
        ).map(([key, label, value]) => (
          <div key={key} className={`count count-import-${key}`} data-count={key}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {job.failure && (
        <p className="notice notice-error" role="alert">
          {job.failure}
        </p>
      )}
      {liveError && !finished && <p className="muted">Live progress paused: {liveError.message}</p>}
      {finished && job.errors.length > 0 && (
        <>
          <h4 id="import-errors-title">
            Rows not imported
            {job.invalid > job.errors.length && <span className="muted small"> (the first {formatCount(job.errors.length)} of {formatCount(job.invalid)})</span>}
          </h4>
          <div className="table-wrap import-errors" tabIndex={0} role="region" aria-labelledby="import-errors-title">
            <table className="striped" aria-labelledby="import-errors-title">
              <thead>
                <tr>
                  <th scope="col" className="num">
                    Line
                  </th>
                  <th scope="col">Field</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {job.errors.map((row, index) => (
                  <tr key={index} data-line={row.line}>
                    <td className="num">{row.line}</td>
                    <td className="mono">{row.field ?? '—'}</td>
                    <td>{fieldMessage(row.field, row.message)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {finished && (
        <div className="form-actions">
          <button type="button" className="secondary" onClick={onAgain}>
            Import another file
          </button>
          <button type="button" className="secondary outline" onClick={onClose}>
            Close
          </button>
        </div>
      )}
    </section>
  );
}
