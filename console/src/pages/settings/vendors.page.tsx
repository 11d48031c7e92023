import { useQuery } from '../../api/hooks';
import { ErrorNotice } from '../../ui/notice';
import { DataTable } from '../../ui/table';
import { VoiceVendorsDocument } from './tokens.operations';

const PARTS: Record<string, string> = {
  realtime: 'multimodal engine',
  stt: 'speech-to-text',
  llm: 'language model',
  tts: 'text-to-speech',
  engine: 'runs pipeline phone calls',
};

/** The voice vendors of this server, configured or not, with the variables that configure them (read-only). */
export function VendorsPage() {
  const vendors = useQuery(VoiceVendorsDocument);
  return (
    <>
      <header className="page-head">
        <h1>Voice vendors</h1>
      </header>
      <p className="muted">
        What this server can speak and listen with. The operator configures vendors with environment variables and restarts the server; an assistant whose engine needs a vendor missing
        here cannot take calls.
      </p>
      <ErrorNotice error={vendors.error} />
      <DataTable rows={vendors.data?.voiceVendors} what="vendors" empty="No vendors." columns={['Vendor', 'Used for', 'State', 'Configured by']}>
        {(vendor) => (
          <tr key={`${vendor.variables[0]}:${vendor.code}`} data-vendor={vendor.code}>
            <td>{vendor.name}</td>
            <td>{vendor.parts.map((part) => PARTS[part] ?? part).join(', ')}</td>
            <td className="vendor-state" data-configured={String(vendor.configured)}>
              {vendor.configured ? <span className="status status-good">✓ Configured</span> : <span className="status status-bad">✗ Not configured</span>}
            </td>
            <td className="mono vendor-variables">{vendor.variables.join(', ')}</td>
          </tr>
        )}
      </DataTable>
    </>
  );
}
