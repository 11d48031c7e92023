import { useState } from 'react';
import { request, ApiError, lastSignOutReason } from '../../api/client';
import { signIn, signOut } from '../../api/session';
import { DeveloperLinks } from '../../ui/developer-links';
import { MeDocument } from './account.operations';

/**
 * A token of the account (the first start prints the demo account's; `npm run cli --
 * token:create` makes one). Checked with the API before the console opens.
 */
export function SignInPage() {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(lastSignOutReason);
  const [busy, setBusy] = useState(false);
  async function submit(event: any) {
    event.preventDefault();
    const value = token.trim().replace(/^Bearer\s+/i, '');
    if (!value) return setError('Paste a token first.');
    setBusy(true);
    signIn(value);
    try {
      await request(MeDocument);
    } catch (caught) {
      signOut();
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  }
  return (
    <main className="sign-in">
      <article>
        <header>
          <div className="brand">
            <span className="brand-mark" aria-hidden="true">
              ◉
            </span>
            vozgate
          </div>
          <h1>Sign in to the console</h1>
          <p>Campaigns, calls and assistants of your account, live.</p>
        </header>
        <form onSubmit={submit} noValidate>
          <label htmlFor="token">Token</label>
          <input
            id="token"
            type="password"
            autoComplete="off"
            value={token}
            onChange={(event: any) => setToken(event.target.value)}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'token-error token-hint' : 'token-hint'}
          />
          <small id="token-hint">Kept in this browser tab only, until you sign out or close it.</small>
          {error && (
            <small id="token-error" className="field-error" role="alert">
              {error}
            </small>
          )}
          <button type="submit" aria-busy={busy ? 'true' : undefined} disabled={busy}>
            Sign in
          </button>
        </form>
        <footer>
          <p className="token-source">
            Where a token comes from: the server’s first start prints the demo account’s, as <code>export TOKEN=…</code>; its operator makes one for any
            account with <code>npm run cli -- token:create --account ID</code>.
          </p>
          <DeveloperLinks />
        </footer>
      </article>
    </main>
  );
}
