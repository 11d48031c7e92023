import { SmsProviderError, type ContentTemplate } from '../modules/sms/sms.ports';

/** The most templates read (a page of Twilio's holds up to 1,000; a WhatsApp account a few hundred). */
const MAX_TEMPLATES = 1000;
const PAGE_SIZE = 100;
/** Approval requests asked at once. */
const PARALLEL = 4;
/** The most an answer of the Content API may weigh: a page of 100 templates is a few hundred kB. */
const MAX_ANSWER_BYTES = 5 * 1024 * 1024;

export interface ContentApiSettings {
  accountSid: string;
  authToken: string;
  /** TWILIO_CONTENT_API_BASE. */
  base: string;
}

/**
 * Twilio's Content API, as the WhatsApp templates need it: `GET {base}/v1/Content`, paged
 * (`{contents: [...], meta: {next_page_url}}`), and each template's WhatsApp approval from
 * `GET {base}/v1/Content/{sid}/ApprovalRequests` (`{whatsapp: {status, category, name}}`),
 * basic auth with the account's SID and auth token. Everything it answers is untrusted: a
 * next page is followed on the configured base only (the credentials go nowhere else), and
 * a field that is not what the documentation says is read as absent.
 */
export class TwilioContentApi {
  constructor(
    private readonly settings: ContentApiSettings,
    private readonly timeoutMs: number,
  ) {}

  async templates(): Promise<ContentTemplate[]> {
    const base = new URL(this.settings.base);
    const found: { sid: string; raw: Record<string, unknown> }[] = [];
    let next: URL | null = new URL(`/v1/Content?PageSize=${PAGE_SIZE}`, base);
    while (next && found.length < MAX_TEMPLATES) {
      const page = (await this.get(next)) as { contents?: unknown; meta?: { next_page_url?: unknown } } | null;
      if (!page || !Array.isArray(page.contents)) throw new SmsProviderError('twilio content: the template list is not the documented JSON');
      for (const item of page.contents as Record<string, unknown>[]) {
        if (item && typeof item.sid === 'string' && /^HX[0-9a-fA-F]{32}$/.test(item.sid)) found.push({ sid: item.sid, raw: item });
      }
      next = null;
      if (typeof page.meta?.next_page_url === 'string' && page.contents.length > 0) {
        const url = new URL(page.meta.next_page_url, base);
        // Twilio names its own host; a configured stand-in keeps ours.
        next = new URL(`${url.pathname}${url.search}`, base);
        if (!next.pathname.startsWith('/v1/Content')) next = null;
      }
    }
    const templates = found.slice(0, MAX_TEMPLATES);
    const approvals: { status: string; category: string | null; name: string | null }[] = new Array(templates.length);
    let cursor = 0;
    const worker = async () => {
      while (cursor < templates.length) {
        const index = cursor++;
        approvals[index] = await this.approval(base, templates[index].sid);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, templates.length) }, worker));
    return templates.map(({ sid, raw }, index) => toTemplate(sid, raw, approvals[index]));
  }

  private async approval(base: URL, sid: string): Promise<{ status: string; category: string | null; name: string | null }> {
    const answer = (await this.get(new URL(`/v1/Content/${sid}/ApprovalRequests`, base), true)) as { whatsapp?: Record<string, unknown> | null } | null;
    const whatsapp = answer?.whatsapp && typeof answer.whatsapp === 'object' ? answer.whatsapp : null;
    return {
      status: typeof whatsapp?.status === 'string' && whatsapp.status ? whatsapp.status.slice(0, 32) : 'unsubmitted',
      category: typeof whatsapp?.category === 'string' && whatsapp.category ? whatsapp.category.slice(0, 32) : null,
      name: typeof whatsapp?.name === 'string' && whatsapp.name ? whatsapp.name : null,
    };
  }

  /** One GET; a 404 is null when `missingIsNull` (a template never submitted has no approval request). */
  private async get(url: URL, missingIsNull = false): Promise<unknown> {
    const { accountSid, authToken } = this.settings;
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        headers: { authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`, accept: 'application/json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const length = Number(response.headers.get('content-length') ?? 0);
      if (length > MAX_ANSWER_BYTES) throw new SmsProviderError('twilio content: the answer is too large');
      text = await response.text();
    } catch (error) {
      if (error instanceof SmsProviderError) throw error;
      const reason = (error as Error).name === 'TimeoutError' ? 'timeout' : ((error as { cause?: { code?: string } }).cause?.code ?? 'no answer');
      throw new SmsProviderError(`twilio content: not reached (${reason})`);
    }
    if (text.length > MAX_ANSWER_BYTES) throw new SmsProviderError('twilio content: the answer is too large');
    if (response.status === 404 && missingIsNull) return null;
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: said below
    }
    if (response.status !== 200) {
      const payload = body as { code?: unknown; message?: unknown } | null;
      const code = payload?.code !== undefined ? ` ${String(payload.code)}` : '';
      const detail = typeof payload?.message === 'string' ? payload.message.slice(0, 200) : 'no detail';
      throw new SmsProviderError(`twilio content${code}: ${detail} (HTTP ${response.status})`);
    }
    return body;
  }
}

/** A Content resource as the domain reads it: its text is the body of its `twilio/text` type (or of the first type that has one). */
function toTemplate(sid: string, raw: Record<string, unknown>, approval: { status: string; category: string | null; name: string | null }): ContentTemplate {
  const types = raw.types && typeof raw.types === 'object' ? (raw.types as Record<string, unknown>) : {};
  const bodies = Object.entries(types)
    .sort(([a], [b]) => (a === 'twilio/text' ? -1 : b === 'twilio/text' ? 1 : 0))
    .map(([, type]) => (type && typeof type === 'object' ? (type as { body?: unknown }).body : undefined))
    .filter((body): body is string => typeof body === 'string');
  const variables: Record<string, string> = {};
  if (raw.variables && typeof raw.variables === 'object' && !Array.isArray(raw.variables)) {
    for (const [name, value] of Object.entries(raw.variables as Record<string, unknown>).slice(0, 100)) {
      if (typeof value === 'string' || typeof value === 'number') variables[name.slice(0, 64)] = String(value).slice(0, 1024);
    }
  }
  const name = typeof raw.friendly_name === 'string' && raw.friendly_name ? raw.friendly_name : (approval.name ?? sid);
  return {
    sid,
    name: name.slice(0, 255),
    language: typeof raw.language === 'string' && raw.language ? raw.language.slice(0, 16) : null,
    body: bodies[0]?.slice(0, 4096) ?? null,
    variables,
    status: approval.status,
    category: approval.category,
  };
}
