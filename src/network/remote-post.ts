// One POST to a remote of /network (front thread): the fan-out of a useNetwork search
// (network-search.ts) and a federated query's federationOptions.remote (remote-query.ts). What failed
// before an answer, and a refused key, are Meilisearch's remote_* errors; the caller reads the rest.
import { SkeinError } from '../errors/index.js';

/** How long a remote may take to answer one request. */
export const REMOTE_TIMEOUT_MS = 30_000;

/** POSTs `body` as JSON to `url` + `path` with the remote's key; its status and text (unbounded by us: our own remotes). */
export async function postToRemote(name: string, url: string, path: string, apiKey: string | null | undefined, body: unknown): Promise<{ status: number; text: string }> {
  let response: Response;
  try {
    response = await fetch(`${url.replace(/\/+$/, '')}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REMOTE_TIMEOUT_MS),
    });
  } catch (cause) {
    const error = cause as Error;
    if (error.name === 'TimeoutError') throw new SkeinError('remote_timeout', `Remote \`${name}\` did not answer within ${REMOTE_TIMEOUT_MS} ms.`);
    throw new SkeinError('remote_could_not_send_request', `Could not send the request to remote \`${name}\`: ${(error.cause as Error | undefined)?.message ?? error.message}.`);
  }
  const text = await response.text().catch(() => '');
  if (response.status === 401 || response.status === 403) {
    throw new SkeinError('remote_invalid_api_key', `Remote \`${name}\` refused the search API key (status ${response.status}).`);
  }
  return { status: response.status, text };
}
