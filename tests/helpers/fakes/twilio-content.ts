import { json, startReceiver, type Receiver } from '../receiver';

/**
 * A local stand-in for Twilio's Content API, speaking its JSON: `GET /v1/Content` pages
 * (`{contents: [...], meta: {page, page_size, first_page_url, previous_page_url, url,
 * next_page_url, key: "contents"}}`, `PageSize` and `Page` in the query, the page URLs on
 * Twilio's host), `GET /v1/Content/{Sid}/ApprovalRequests` (`{sid, account_sid, url,
 * whatsapp: {name, category, content_type, status, rejection_reason, allow_category_change,
 * type}}`) and Twilio's error body `{code, message, more_info, status}`. Only requests with
 * the account's basic auth are answered (401 otherwise).
 */
export interface FakeContent {
  sid: string;
  friendly_name: string;
  language: string;
  variables: Record<string, string>;
  types: Record<string, unknown>;
  /** Its WhatsApp approval; none: never submitted (the approval fetch answers 404). */
  approval: { status: string; category: string } | null;
}

export interface FakeContentApi {
  url: string;
  receiver: Receiver;
  contents: FakeContent[];
  /** Answer every request with this status and Twilio's error body (null: work). */
  failWith: number | null;
  close(): Promise<void>;
}

const HOST = 'https://content.twilio.com';

export async function startFakeContentApi(accountSid: string, authToken: string): Promise<FakeContentApi> {
  const receiver = await startReceiver();
  const fake: FakeContentApi = { url: receiver.url, receiver, contents: [], failWith: null, close: () => receiver.close() };
  const auth = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
  const error = (res: Parameters<Receiver['respond']>[1], status: number, code: number, message: string) =>
    json(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

  receiver.respond = (request, res) => {
    if (request.headers.authorization !== auth) return error(res, 401, 20003, 'Authenticate');
    if (fake.failWith !== null) return error(res, fake.failWith, 20500, 'Internal Server Error');
    const url = new URL(request.url, HOST);
    const approval = /^\/v1\/Content\/(HX[0-9a-fA-F]{32})\/ApprovalRequests$/.exec(url.pathname);
    if (request.method === 'GET' && approval) {
      const content = fake.contents.find((c) => c.sid === approval[1]);
      if (!content?.approval) return error(res, 404, 20404, 'The requested resource was not found');
      return json(res, 200, {
        sid: content.sid,
        account_sid: accountSid,
        url: `${HOST}/v1/Content/${content.sid}/ApprovalRequests`,
        whatsapp: {
          type: 'whatsapp',
          name: content.friendly_name,
          category: content.approval.category,
          content_type: Object.keys(content.types)[0],
          status: content.approval.status,
          rejection_reason: '',
          allow_category_change: true,
          flows: null,
        },
      });
    }
    if (request.method !== 'GET' || url.pathname !== '/v1/Content') return error(res, 404, 20404, 'The requested resource was not found');
    const size = Math.min(Number(url.searchParams.get('PageSize') ?? 50), 1000);
    const page = Number(url.searchParams.get('Page') ?? 0);
    const pageUrl = (n: number) => `${HOST}/v1/Content?PageSize=${size}&Page=${n}`;
    const slice = fake.contents.slice(page * size, (page + 1) * size);
    const more = (page + 1) * size < fake.contents.length;
    return json(res, 200, {
      contents: slice.map((c) => ({
        sid: c.sid,
        account_sid: accountSid,
        friendly_name: c.friendly_name,
        language: c.language,
        variables: c.variables,
        types: c.types,
        url: `${HOST}/v1/Content/${c.sid}`,
        links: { approval_fetch: `${HOST}/v1/Content/${c.sid}/ApprovalRequests`, approval_create: `${HOST}/v1/Content/${c.sid}/ApprovalRequests/whatsapp` },
        date_created: '2026-01-10T12:00:00Z',
        date_updated: '2026-01-10T12:00:00Z',
      })),
      meta: { page, page_size: size, first_page_url: pageUrl(0), previous_page_url: page > 0 ? pageUrl(page - 1) : null, url: pageUrl(page), next_page_url: more ? pageUrl(page + 1) : null, key: 'contents' },
    });
  };
  return fake;
}
