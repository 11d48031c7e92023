import { Link } from 'wouter';
import { useQuery } from '../../api/hooks';
import { formatTime } from '../../ui/format';
import { ErrorNotice } from '../../ui/notice';
import { DataTable } from '../../ui/table';
import { AssistantsDocument } from './assistants.operations';

export function AssistantsPage() {
  const assistants = useQuery(AssistantsDocument);
  return (
    <>
      <header className="page-head">
        <h1>Assistants</h1>
        <Link href="/assistants/new" role="button">
          New assistant
        </Link>
      </header>
      <ErrorNotice error={assistants.error} />
      <DataTable rows={assistants.data?.assistants} what="assistants" empty="No assistants yet." columns={['Name', 'Direction', 'Engine', 'Voice', 'Language', 'Model', 'Number', 'Updated']}>
        {(assistant) => (
          <tr key={assistant.id}>
            <td>
              <Link href={`/assistants/${assistant.id}`}>{assistant.assistant_name}</Link>
            </td>
            <td>{assistant.type}</td>
            <td>{assistant.engine_type}</td>
            <td>
              {assistant.voice.name}
              {assistant.voice.provider && <span className="muted"> · {assistant.voice.provider}</span>}
            </td>
            <td>{assistant.language}</td>
            <td>{assistant.llm_model}</td>
            <td className="mono">{assistant.phone_number ?? '—'}</td>
            <td>{formatTime(assistant.updated_at)}</td>
          </tr>
        )}
      </DataTable>
    </>
  );
}
