import { useMutation } from '../../api/hooks';
import { ErrorNotice } from '../../ui/notice';
import { StartCampaignDocument, StopCampaignDocument } from './campaigns.operations';

/** Start (draft, paused, completed) or stop (running), with the API's refusal shown under it. */
export function StartStop({ id, name, status, onChange }: { id: number; name: string; status: string; onChange?: () => void }) {
  const start = useMutation(StartCampaignDocument);
  const stop = useMutation(StopCampaignDocument);
  const running = status === 'running';
  return (
    <div className="start-stop">
      {running ? (
        <button type="button" className="secondary" aria-label={`Stop ${name}`} aria-busy={stop.running ? 'true' : undefined} onClick={async () => (await stop.run({ id })) && onChange?.()}>
          Stop
        </button>
      ) : (
        <button type="button" aria-label={`Start ${name}`} aria-busy={start.running ? 'true' : undefined} onClick={async () => (await start.run({ id })) && onChange?.()}>
          Start
        </button>
      )}
      <ErrorNotice error={start.error ?? stop.error} />
    </div>
  );
}
