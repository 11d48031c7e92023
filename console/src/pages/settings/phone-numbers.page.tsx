import { Fragment, useState } from 'react';
import { Link } from 'wouter';
import type { ApiError } from '../../api/client';
import { useMutation, useQuery } from '../../api/hooks';
import type { ConsoleAvailablePhoneNumbersQuery, ConsolePhoneNumbersQuery } from '../../gql/graphql';
import { formatMoney } from '../../ui/format';
import { ErrorNotice } from '../../ui/notice';
import { DataTable } from '../../ui/table';

import { AvailablePhoneNumbersDocument, PhoneNumbersDocument, PurchasePhoneNumberDocument, ReleasePhoneNumberDocument, UpdatePhoneNumberDocument } from './settings.operations';

type Owned = ConsolePhoneNumbersQuery['phoneNumbers'][number];
type Offer = ConsoleAvailablePhoneNumbersQuery['availablePhoneNumbers'][number];

/** A refusal as one sentence: its messages about fields when it has any (a confirmation has no field to show them beside). */
function Problem({ error }: { error: ApiError | null }) {
  if (!error) return null;
  const fields = Object.values(error.fields).flat();
  return (
    <p className="notice notice-error" role="alert">
      {fields.length ? fields.join(' ') : error.message}
    </p>
  );
}

/**
 * The account's numbers, what each can do and which assistant answers it; numbers bought
 * from the telephony provider (the simulator's fixed inventory on a fresh install), named
 * and released here. Prices and the balance are the API's, shown as they come.
 */
export function PhoneNumbersPage() {
  const numbers = useQuery(PhoneNumbersDocument);
  const me = numbers.data?.me;
  const assistantName = (id: number | null | undefined) => numbers.data?.assistants.find((assistant) => assistant.id === id)?.assistant_name;
  return (
    <>
      <header className="page-head">
        <h1>Phone numbers</h1>
      </header>
      <p className="muted lead">
        Buy a number below, or have the operator add one of the account's own (`npm run cli -- phone-number:add`); assign one to an assistant in its editor. Balance:{' '}
        <span data-testid="numbers-balance">{me ? `${formatMoney(me.balance)} ${me.currency}` : '…'}</span>
      </p>
      <ErrorNotice error={numbers.error} />
      <DataTable rows={numbers.data?.phoneNumbers} what="phone numbers" empty="No phone numbers on this account." columns={['Number', 'Nickname', 'Assistant', 'SMS', 'Monthly price', 'Subscription ends', '']}>
        {(number) => <OwnedRow key={number.id} number={number} assistantName={assistantName(number.assistant_id)} currency={me?.currency ?? ''} onChange={() => void numbers.refetch()} />}
      </DataTable>
      <PurchasePanel currency={me?.currency ?? ''} onBought={() => void numbers.refetch()} />
    </>
  );
}

function OwnedRow({ number, assistantName, currency, onChange }: { number: Owned; assistantName: string | undefined; currency: string; onChange: () => void }) {
  const [naming, setNaming] = useState(false);
  const [nickname, setNickname] = useState('');
  const [releasing, setReleasing] = useState(false);
  const update = useMutation(UpdatePhoneNumberDocument);
  const release = useMutation(ReleasePhoneNumberDocument);
  const id = `number-${number.id}`;
  const nicknameError = update.error?.fields.nickname;
  async function save(event: any) {
    event.preventDefault();
    if ((await update.run({ id: number.id, input: { nickname: nickname.trim() || null } })) !== null) {
      setNaming(false);
      onChange();
    }
  }
  return (
    <>
      <tr data-number={number.id}>
        <td className="mono">{number.phone_number}</td>
        <td>
          {naming ? (
            <form className="inline-form" noValidate onSubmit={save}>
              <label htmlFor={`${id}-nickname`} className="visually-hidden">
                Nickname of {number.phone_number}
              </label>
              <input
                id={`${id}-nickname`}
                value={nickname}
                maxLength={255}
                onChange={(event: any) => setNickname(event.target.value)}
                aria-invalid={nicknameError ? 'true' : undefined}
                aria-describedby={nicknameError ? `${id}-nickname-error` : undefined}
              />
              {nicknameError && (
                <small id={`${id}-nickname-error`} className="field-error">
                  {nicknameError.join(' ')}
                </small>
              )}
              {update.error && !nicknameError && <ErrorNotice error={update.error} />}
              <button type="submit" className="small" aria-busy={update.running ? 'true' : undefined} disabled={update.running}>
                Save
              </button>
              <button type="button" className="secondary outline small" onClick={() => (setNaming(false), update.reset())}>
                Cancel
              </button>
            </form>
          ) : (
            <>
              <span className="nickname">{number.nickname ?? '—'}</span>{' '}
              <button type="button" className="secondary outline small" aria-label={`Rename ${number.phone_number}`} onClick={() => (setNickname(number.nickname ?? ''), setNaming(true))}>
                Rename
              </button>
            </>
          )}
        </td>
        <td>{number.assistant_id ? <Link href={`/assistants/${number.assistant_id}`}>{assistantName ?? `#${number.assistant_id}`}</Link> : '—'}</td>
        <td>{number.sms_capable ? 'Yes' : 'No'}</td>
        <td className="num">{number.monthly_price === null || number.monthly_price === undefined ? 'Not billed here' : `${formatMoney(number.monthly_price)} ${currency}`}</td>
        <td>{number.expires_at ? `${number.expires_at}${number.renews ? ' (renews)' : ' (does not renew)'}` : 'Does not expire'}</td>
        <td className="actions">
          <button type="button" className="secondary outline small" aria-label={`Release ${number.phone_number}…`} aria-expanded={releasing} disabled={releasing} onClick={() => setReleasing(true)}>
            Release…
          </button>
        </td>
      </tr>
      {releasing && (
        <tr data-confirm={number.id}>
          <td colSpan={7}>
            <div role="group" aria-label={`Release ${number.phone_number}?`}>
              <p>Release {number.phone_number}? Its assistants lose it, campaigns left without a number pause, and it cannot be taken back.</p>
              <Problem error={release.error} />
              <button
                type="button"
                className="small contrast"
                aria-busy={release.running ? 'true' : undefined}
                disabled={release.running}
                onClick={async () => (await release.run({ id: number.id })) !== null && onChange()}
              >
                Release {number.phone_number}
              </button>{' '}
              <button type="button" className="secondary outline small" onClick={() => (setReleasing(false), release.reset())}>
                Keep it
              </button>
            </div>
          </td>
        </tr>
      )}
    </>
  );
}

/** Search the provider's numbers by country and digits, each with its monthly price, and buy one after a confirmation that names the charge. */
function PurchasePanel({ currency, onBought }: { currency: string; onBought: () => void }) {
  const [country, setCountry] = useState('');
  const [contains, setContains] = useState('');
  const [asked, setAsked] = useState<{ country_code: string; contains: string | null } | null>(null);
  const offers = useQuery(AvailablePhoneNumbersDocument, asked ?? undefined, { skip: !asked });
  const [chosen, setChosen] = useState<Offer | null>(null);
  const [bought, setBought] = useState<string | null>(null);
  const purchase = useMutation(PurchasePhoneNumberDocument);
  const fields = offers.error?.fields ?? {};
  async function buy(offer: Offer) {
    if ((await purchase.run({ input: { phone_number: offer.phone_number } })) === null) return;
    setBought(offer.phone_number);
    setChosen(null);
    onBought();
    void offers.refetch();
  }
  return (
    <section aria-labelledby="buy-title">
      <h2 id="buy-title">
        Buy a number
      </h2>
      <form
        className="filters panel"
        noValidate
        onSubmit={(event: any) => {
          event.preventDefault();
          setBought(null);
          setChosen(null);
          purchase.reset();
          setAsked({ country_code: country.trim().toUpperCase(), contains: contains.trim() || null });
        }}
      >
        <div>
          <label htmlFor="buy-country">Country (BR, US, DE…)</label>
          <input
            id="buy-country"
            value={country}
            maxLength={2}
            autoComplete="off"
            onChange={(event: any) => setCountry(event.target.value)}
            aria-invalid={fields.country_code ? 'true' : undefined}
            aria-describedby={fields.country_code ? 'buy-country-error' : undefined}
          />
          {fields.country_code && (
            <small id="buy-country-error" className="field-error">
              {fields.country_code.join(' ')}
            </small>
          )}
        </div>
        <div className="grow">
          <label htmlFor="buy-contains">Contains (digits, optional)</label>
          <input
            id="buy-contains"
            value={contains}
            inputMode="numeric"
            autoComplete="off"
            onChange={(event: any) => setContains(event.target.value)}
            aria-invalid={fields.contains ? 'true' : undefined}
            aria-describedby={fields.contains ? 'buy-contains-error' : undefined}
          />
          {fields.contains && (
            <small id="buy-contains-error" className="field-error">
              {fields.contains.join(' ')}
            </small>
          )}
        </div>
        <button type="submit" aria-busy={offers.loading && asked ? 'true' : undefined}>
          Search
        </button>
      </form>
      {offers.error && Object.keys(fields).length === 0 && <ErrorNotice error={offers.error} />}
      {bought && (
        <p className="notice" role="status">
          Bought {bought}: it is in your numbers above, and its first month was charged.
        </p>
      )}
      {asked && !offers.error && (
        <DataTable rows={offers.data?.availablePhoneNumbers} what="the numbers on offer" empty="No number on offer matches: try other digits or another country." columns={['Number', 'Where', 'Can', 'Monthly price', '']}>
          {(offer) => (
            <Fragment key={offer.phone_number}>
              <tr data-offer={offer.phone_number}>
                <td className="mono">{offer.phone_number}</td>
                <td>{[offer.locality, offer.region, offer.iso_country].filter(Boolean).join(', ')}</td>
                <td>{(['voice', 'sms', 'mms'] as const).filter((what) => offer.capabilities[what]).map((what) => (what === 'voice' ? 'Voice' : what.toUpperCase())).join(', ') || '—'}</td>
                <td className="num monthly-price">
                  {formatMoney(offer.monthly_price)} {currency}
                </td>
                <td className="actions">
                  <button type="button" className="small" aria-label={`Buy ${offer.phone_number}…`} aria-expanded={chosen?.phone_number === offer.phone_number} onClick={() => (setChosen(offer), purchase.reset())}>
                    Buy…
                  </button>
                </td>
              </tr>
              {chosen?.phone_number === offer.phone_number && (
                <tr data-confirm={offer.phone_number}>
                  <td colSpan={5}>
                    <div role="group" aria-label={`Buy ${offer.phone_number}?`}>
                      <p>
                        Buy {offer.phone_number}: {formatMoney(offer.monthly_price)} {currency} now, then each month while the balance covers it.
                      </p>
                      <Problem error={purchase.error} />
                      <button type="button" className="small" aria-busy={purchase.running ? 'true' : undefined} disabled={purchase.running} onClick={() => void buy(offer)}>
                        Buy for {formatMoney(offer.monthly_price)} {currency}
                      </button>{' '}
                      <button type="button" className="secondary outline small" onClick={() => (setChosen(null), purchase.reset())}>
                        Cancel
                      </button>
                    </div>
                  </td>
                </tr>
              )}
            </Fragment>
          )}
        </DataTable>
      )}
    </section>
  );
}
