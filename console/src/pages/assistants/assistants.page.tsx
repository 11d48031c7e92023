import { Link } from 'wouter';
import { useQuery } from '../../api/hooks';
import { formatTime } from '../../ui/format';
import { Empty, ErrorNotice, Loading } from '../../ui/notice';
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
      {!assistants.data ? (
        <Loading what="assistants" />
      ) : assistants.data.assistants.length === 0 ? (
        <Empty>No assistants yet.</Empty>
      ) : (
        <div className="table-wrap">
          <table className="striped">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Direction</th>
                <th scope="col">Engine</th>
                <th scope="col">Voice</th>
                <th scope="col">Language</th>
                <th scope="col">Model</th>
                <th scope="col">Number</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {assistants.data.assistants.map((assistant) => (
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
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
