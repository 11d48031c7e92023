import { useState } from 'react';
import { useMutation, useQuery } from '../../api/hooks';
import { CopyButton } from '../../ui/copy-button';
import { formatTime } from '../../ui/format';
import { ErrorNotice } from '../../ui/notice';
import { DataTable } from '../../ui/table';
import { ApiTokensDocument, CreateApiTokenDocument, RevokeApiTokenDocument } from './tokens.operations';

/** The account's API tokens (the CLI's token:create, token:list and token:revoke): the new one shown once. */
export function TokensPage() {
  const tokens = useQuery(ApiTokensDocument);
  const create = useMutation(CreateApiTokenDocument);
  const revoke = useMutation(RevokeApiTokenDocument);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  async function submit(event: any) {
    event.preventDefault();
    const made = await create.run({ name: name.trim() || null });
    if (made) {
      setCreated(made.createApiToken.token);
      setName('');
      void tokens.refetch();
    }
  }
  const nameError = create.error?.fields.name?.[0];
  return (
    <>
      <header className="page-head">
        <h1>API tokens</h1>
      </header>
      <p className="muted">Each token acts as this account on the API (REST, GraphQL and this console). A token is shown once, when it is created; revoked, it is refused at once.</p>
      <form className="panel" onSubmit={submit} noValidate aria-label="New token">
        <h2>New token</h2>
        {create.error && !nameError && <ErrorNotice error={create.error} />}
        <label htmlFor="token-name">
          Name <small>(optional: who or what will use it)</small>
        </label>
        <input id="token-name" name="name" value={name} maxLength={100} onChange={(event: any) => setName(event.target.value)} aria-invalid={nameError ? 'true' : undefined} aria-describedby={nameError ? 'token-name-error' : undefined} />
        {nameError && (
          <small id="token-name-error" className="field-error">
            {nameError}
          </small>
        )}
        <div className="form-actions">
          <button type="submit" aria-busy={create.running ? 'true' : undefined}>
            Create token
          </button>
        </div>
      </form>
      {created && (
        <div className="notice notice-ok new-token" role="status">
          <p>Token created. Copy it now: it is not shown again.</p>
          <p>
            <code className="token-value">{created}</code> <CopyButton text={created} label="Copy the new token" />
          </p>
        </div>
      )}
      <ErrorNotice error={tokens.error ?? revoke.error} />
      <DataTable rows={tokens.data?.apiTokens} what="tokens" empty="No tokens." columns={['Name', 'Token', 'Created', 'Last used', '']}>
        {(token) => {
          const title = token.name ?? `${token.prefix}…`;
          return (
            <tr key={token.id} data-token={token.id}>
              <td>{token.name ?? <span className="muted">—</span>}</td>
              <td className="mono">{token.prefix}…</td>
              <td>{formatTime(token.created_at)}</td>
              <td className="last-used">{token.last_used_at ? formatTime(token.last_used_at) : 'Never'}</td>
              <td className="actions">
                <button
                  type="button"
                  className="secondary outline small"
                  aria-label={`Revoke ${title}`}
                  onClick={async () =>
                    confirm(`Revoke ${title}? Requests that carry it are refused from now on.`) && (await revoke.run({ id: token.id })) !== null && void tokens.refetch()
                  }
                >
                  Revoke
                </button>
              </td>
            </tr>
          );
        }}
      </DataTable>
    </>
  );
}
