// Listening on the HTTP address, alone. uSockets sets SO_REUSEPORT on its listen sockets unless told
// LIBUS_LISTEN_EXCLUSIVE_PORT: a second server on the same port then binds too and the kernel spreads
// the connections over both. uWS says only that listening failed, so a probe bind with node:net
// names the reason (address in use, not available, permission denied).
import { createServer } from 'node:net';
import uws from './uws.js';
import type { TemplatedApp, us_listen_socket } from '@trufflesuite/uws-js-unofficial';

/** The native listen takes (host, port, options, callback); the typings of this build only know (port, options, callback). */
type ListenWithOptions = (host: string, port: number, options: number, callback: (socket: us_listen_socket | false) => void) => TemplatedApp;

/** Exported by the native module (1), missing from its typings. */
const LIBUS_LISTEN_EXCLUSIVE_PORT = (uws as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number }).LIBUS_LISTEN_EXCLUSIVE_PORT;

export function listenExclusively(app: TemplatedApp, host: string, port: number): Promise<us_listen_socket> {
  return new Promise((resolve, reject) => {
    (app.listen as unknown as ListenWithOptions).call(app, host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (socket) resolve(socket);
      else void listenFailure(host, port).then(reject);
    });
  });
}

const REASONS: Record<string, string> = {
  EADDRINUSE: 'address in use',
  EADDRNOTAVAIL: 'address not available',
  EACCES: 'permission denied',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
};

async function listenFailure(host: string, port: number): Promise<Error> {
  const reason = await new Promise<string | null>((done) => {
    const probe = createServer();
    probe.once('error', (cause: NodeJS.ErrnoException) => done(REASONS[cause.code ?? ''] ?? cause.code ?? cause.message));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => done(null)));
  });
  return new Error(`could not listen on ${host}:${port}${reason === null ? '' : `: ${reason}`}`);
}
