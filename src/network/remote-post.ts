// One request to a remote of /network: on the front thread, the fan-out of a useNetwork search or
// documents fetch (network-search.ts) and a federated query's federationOptions.remote
// (remote-query.ts), through NetworkNode's RemoteClient; on the scheduler thread, a topology change's
// pages of documents and phases (scheduler/operations/network-move.ts), through the scheduler's. Each owns the
// policy and the bounds:
// - the addresses it may reach (ip-policy.ts, `--experimental-allowed-ip-networks`), checked on the
//   URL's literal address and on every address its host name resolves to, at connection time;
// - one deadline for the whole exchange, answer included (Meilisearch's 25 s), and a size bound on
//   the answer, read as it arrives: a remote that streams forever or sends a huge body is cut off.
// No redirect is followed. What failed before an answer, a refused key, an answer too big or too
// slow, are Meilisearch's remote_* errors; the caller reads the rest.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { SkeinError } from '../errors/index.js';
import { IpPolicy } from './ip-policy.js';

/** Meilisearch's deadline of a remote request (MEILI_EXPERIMENTAL_REMOTE_SEARCH_TIMEOUT_SECONDS, default 25). */
export const REMOTE_TIMEOUT_MS = 25_000;
/** The largest answer read from a remote: a network search's groups send their hits' documents. */
export const REMOTE_ANSWER_MAX_BYTES = 64 * 1024 * 1024;

export interface RemoteAnswer {
  status: number;
  text: string;
}

class RejectedAddress extends Error {}

export class RemoteClient {
  private readonly lookup: LookupFunction;

  constructor(private readonly policy: IpPolicy, readonly timeoutMs = REMOTE_TIMEOUT_MS, readonly maxAnswerBytes = REMOTE_ANSWER_MAX_BYTES) {
    // Every address the name resolves to must be allowed (Meilisearch's resolver checks them all).
    this.lookup = ((hostname: string, options: LookupAllOptions | number, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
      const all = typeof options === 'object' && options.all === true;
      dnsLookup(hostname, { ...(typeof options === 'object' ? options : { family: options }), all: true }, (error, addresses) => {
        if (error) return callback(error, all ? [] : '');
        const refused = addresses.find((address) => !policy.allows(address.address));
        if (refused) return callback(new RejectedAddress(`\`${hostname}\` resolves to ${refused.address}, outside --experimental-allowed-ip-networks`), all ? [] : '');
        if (all) return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    }) as LookupFunction;
  }

  /** POSTs `body` as JSON to `url` + `path` with the remote's key; its status and text. */
  post(name: string, url: string, path: string, apiKey: string | null | undefined, body: unknown): Promise<RemoteAnswer> {
    return this.send('POST', name, url, path, apiKey, Buffer.from(JSON.stringify(body)));
  }

  /** GETs `url` + `path` with the remote's key; its status and text. */
  get(name: string, url: string, path: string, apiKey: string | null | undefined): Promise<RemoteAnswer> {
    return this.send('GET', name, url, path, apiKey, null);
  }

  private send(method: 'GET' | 'POST', name: string, url: string, path: string, apiKey: string | null | undefined, payload: Buffer | null): Promise<RemoteAnswer> {
    let target: URL;
    try {
      target = new URL(`${url.replace(/\/+$/, '')}${path}`);
    } catch {
      return Promise.reject(new SkeinError('invalid_network_url', `Invalid remote url: \`${url.slice(0, 128)}\` of remote \`${name}\`.`));
    }
    const cannotSend = (reason: string) => new SkeinError('remote_could_not_send_request', `Could not send the request to remote \`${name}\`: ${reason}.`);
    const literal = target.hostname.startsWith('[') || /^[\d.]+$/.test(target.hostname);
    if (literal && !this.policy.allows(target.hostname)) {
      return Promise.reject(cannotSend(`Rejected IP ${target.hostname}, outside --experimental-allowed-ip-networks`));
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (error: SkeinError | null, answer?: RemoteAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) {
          request.destroy();
          reject(error);
        } else resolve(answer!);
      };
      const timer = setTimeout(() => finish(new SkeinError('remote_timeout', `Remote \`${name}\` did not answer within ${this.timeoutMs} ms.`)), this.timeoutMs);
      const request = send(target, {
        method, lookup: this.lookup,
        headers: { ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}), ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}) },
      }, (response) => this.read(name, response, finish));
      request.on('error', (error) => {
        const cause = error instanceof RejectedAddress ? error : (error as Error & { cause?: Error }).cause ?? error;
        finish(cannotSend(cause instanceof RejectedAddress ? `Rejected IP: ${cause.message}` : cause.message));
      });
      if (payload) request.end(payload); else request.end();
    });
  }

  private read(name: string, response: IncomingMessage, finish: (error: SkeinError | null, answer?: RemoteAnswer) => void): void {
    const status = response.statusCode ?? 0;
    if (status === 401 || status === 403) {
      response.resume();
      finish(new SkeinError('remote_invalid_api_key', `Remote \`${name}\` refused the search API key (status ${status}).`));
      return;
    }
    const tooBig = () => new SkeinError('remote_bad_response', `Remote \`${name}\` answered more than ${this.maxAnswerBytes} bytes.`);
    if (Number(response.headers['content-length'] ?? 0) > this.maxAnswerBytes) return finish(tooBig());
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > this.maxAnswerBytes) finish(tooBig());
      else chunks.push(chunk);
    });
    response.on('end', () => finish(null, { status, text: Buffer.concat(chunks).toString('utf8') }));
    response.on('aborted', () => finish(new SkeinError('remote_bad_response', `Remote \`${name}\` closed the connection in the middle of its answer.`)));
    response.on('error', (error) => finish(new SkeinError('remote_bad_response', `Remote \`${name}\` answered something unreadable: ${error.message}.`)));
  }
}
