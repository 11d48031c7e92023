import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config';
import type { SecretBox } from './lib/secrets';
import type { Logger } from './log';
import type { LifecycleDeps, TelephonyProvider } from './modules/calls/call.ports';
import type { MediaLoad } from './modules/campaigns/dialer';
import type { Embedder } from './modules/knowledge/knowledge.ports';
import type { ConversationReplier } from './modules/conversations/conversation.ports';
import type { SmsProvider } from './modules/sms/sms.ports';
import type { NumberProvider } from './modules/accounts/phone-number.ports';
import type { SipProvisioner } from './modules/accounts/sip-trunk.ports';
import type { Telemetry } from './telemetry';

/** What the API and the workers share in one process. */
export interface Runtime {
  orm: MikroORM;
  config: Config;
  secrets: SecretBox;
  telephony: TelephonyProvider;
  sms: SmsProvider;
  /** Numbers searched, bought and released (the telephony provider's: TELEPHONY_PROVIDER). */
  numbers: NumberProvider;
  /** SIP trunks' domains and lists at the provider (Twilio); null with the simulator. */
  sipAccess: SipProvisioner | null;
  lifecycle: LifecycleDeps;
  logger: Logger;
  /** The media processes' load reports, read by the dialer before it dials (admission control). */
  mediaLoad: MediaLoad;
  /** The span export (OTEL_EXPORTER_OTLP_ENDPOINT); null when it is off. */
  telemetry: Telemetry | null;
  /** Knowledge-base embeddings (EMBEDDINGS_MODEL): ingestion and search (API and calls) use it; null: full text only. */
  embedder: Embedder | null;
  /** The assistants' replies over text (conversations): the pipeline engine's model, tools and knowledge base. */
  replier: ConversationReplier;
}
