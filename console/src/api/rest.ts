import { ApiError } from './client';
import { currentToken, signOut } from './session';

/**
 * The few REST routes the console needs besides GraphQL: a multipart upload (a file too large
 * for a GraphQL body) and CSV downloads. The token goes in the Authorization header, as on
 * /graphql, never in a URL (a URL lands in the history, in logs and in a Referer).
 */

interface RestErrorBody {
  message?: string;
  code?: string;
  errors?: Record<string, string[]>;
}

async function send(path: string, init: RequestInit): Promise<Response> {
  const token = currentToken();
  let response: Response;
  try {
    response = await fetch(`/api${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  } catch {
    throw new ApiError([], 'The server cannot be reached. Check your connection and try again.');
  }
  if (response.ok) return response;
  const body = (await response.json().catch(() => ({}))) as RestErrorBody;
  // The REST error (message, code, errors by field) in the shape GraphQL's refusals have, so
  // that a form shows either the same way.
  const error = new ApiError(body.message ? [{ message: body.message, extensions: { code: body.code, errors: body.errors } }] : [], `The server answered ${response.status}.`);
  if (response.status === 401) signOut();
  throw error;
}

/** POSTs a multipart form; answers the JSON body. */
export async function postForm<T>(path: string, form: FormData): Promise<T> {
  return (await (await send(path, { method: 'POST', body: form, headers: { accept: 'application/json' } })).json()) as T;
}

/** The file name a response's Content-Disposition gives, else `fallback`. */
function fileName(response: Response, fallback: string): string {
  const match = /filename="?([^";]+)"?/i.exec(response.headers.get('content-disposition') ?? '');
  return match ? match[1] : fallback;
}

/**
 * GETs a file and hands it to the browser as a download (a Blob behind an object URL, since a
 * plain link could not carry the Authorization header). Answers the file's name and size.
 */
export async function download(path: string, fallbackName: string): Promise<{ name: string; bytes: number }> {
  const response = await send(path, { headers: { accept: 'text/csv, application/json' } });
  const blob = await response.blob();
  const name = fileName(response, fallbackName);
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the Blob to the download; the URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return { name, bytes: blob.size };
}
