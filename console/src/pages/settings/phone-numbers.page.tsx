import { Link } from 'wouter';
import { useQuery } from '../../api/hooks';
import { ErrorNotice } from '../../ui/notice';
import { DataTable } from '../../ui/table';

import { PhoneNumbersDocument } from './settings.operations';

/** The account's numbers, what each can do and which assistant answers it. */
export function PhoneNumbersPage() {
  const numbers = useQuery(PhoneNumbersDocument);
  const assistantName = (id: number | null | undefined) => numbers.data?.assistants.find((assistant) => assistant.id === id)?.assistant_name;
  return (
    <>
      <header className="page-head">
        <h1>Phone numbers</h1>
      </header>
      <p className="muted lead">Numbers are added by the operator (`npm run cli -- phone-number:add`); assign one to an assistant in its editor.</p>
      <ErrorNotice error={numbers.error} />
      <DataTable rows={numbers.data?.phoneNumbers} what="phone numbers" empty="No phone numbers on this account." columns={['Number', 'Assistant', 'SMS', 'Subscription ends']}>
        {(number) => (
          <tr key={number.id}>
            <td className="mono">{number.phone_number}</td>
            <td>{number.assistant_id ? <Link href={`/assistants/${number.assistant_id}`}>{assistantName(number.assistant_id) ?? `#${number.assistant_id}`}</Link> : '—'}</td>
            <td>{number.sms_capable ? 'Yes' : 'No'}</td>
            <td>{number.expires_at ?? 'Does not expire'}</td>
          </tr>
        )}
      </DataTable>
    </>
  );
}
