/**
 * The embedded MQTT broker (aedes) of the simulated network, on loopback only. Loopback is not a
 * boundary (any local process reaches it): in sim mode the broker takes only the credentials
 * generated at its start, which travel in its URL to the driver and the simulators and are never
 * logged (docs/security.md).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { Aedes, type AuthenticateError } from 'aedes';

/** A user name and password an MQTT client must give. */
export interface BrokerCredentials {
  username: string;
  password: string;
}

/** New credentials: a fixed user name, 192 random bits of password. */
export function newCredentials(): BrokerCredentials {
  return { username: 'opencube', password: randomBytes(24).toString('base64url') };
}

/** MQTT CONNACK return code 4: bad user name or password. */
const BAD_CREDENTIALS = 4;

function sameSecret(given: Buffer | undefined, wanted: Buffer): boolean {
  return given !== undefined && given.length === wanted.length && timingSafeEqual(given, wanted);
}

export interface Broker {
  /** The URL clients connect to, with the credentials when there are some. */
  url: string;
  port: number;
  /** The topic filters each connected client has subscribed to, by client id (what a client reads). */
  subscriptions(): Map<string, string[]>;
  /** Stops accepting and drops every client (retained messages are lost, as with a broker restart). */
  close(): Promise<void>;
}

export interface BrokerOptions {
  /**
   * aedes' heartbeat (60 s by default). Every 4 heartbeats aedes publishes the last will of each
   * client whose broker has not been heard for 3: tests shorten it to run through many of those
   * sweeps.
   */
  heartbeatMs?: number;
}

/** Starts aedes on 127.0.0.1 (`port` 0 picks a free one); with `credentials`, only clients that give them connect. */
export async function startBroker(
  port = 0,
  host = '127.0.0.1',
  credentials?: BrokerCredentials,
  opts: BrokerOptions = {},
): Promise<Broker> {
  const secret = credentials ? Buffer.from(credentials.password, 'utf8') : undefined;
  const aedes = new Aedes({
    ...(opts.heartbeatMs !== undefined ? { heartbeatInterval: opts.heartbeatMs } : {}),
    ...(credentials && secret
      ? {
          authenticate: (_client, username, password, done) => {
            if (username === credentials.username && sameSecret(password, secret)) return done(null, true);
            const err = new Error('bad user name or password') as AuthenticateError;
            err.returnCode = BAD_CREDENTIALS as AuthenticateError['returnCode'];
            done(err, null);
          },
        }
      : {}),
  });
  // aedes handles the packets of one socket read concurrently: a retained PUBLISH waits for its
  // store while a later plain one is delivered at once, and aedes' duplicate filter (meant for
  // brokers in a cluster) then drops the retained one as "older" for every subscriber: a
  // simulated Zigbee2MQTT coming back lost its bridge/state, devices and availability. One broker
  // has no duplicates to filter, so the filter is off (it applies only to packets with a broker
  // id). Clients of this broker must not hold overlapping subscriptions.
  // The id is set BEFORE listen(), which builds the heartbeat from it: the heartbeat is what tells
  // aedes that the wills stored under this id belong to a live broker. Set after, the heartbeat
  // announced the old random id and every 4 heartbeats (240 s) aedes published the will of every
  // connected client, the simulator's `bridge/state` offline among them (issue 23).
  aedes.id = '';
  await aedes.listen();
  const sockets = new Set<Socket>();
  const subs = new Map<string, Set<string>>();
  aedes.on('subscribe', (list, client) => {
    if (!client) return;
    const set = subs.get(client.id) ?? new Set();
    for (const s of list) set.add(s.topic);
    subs.set(client.id, set);
  });
  aedes.on('unsubscribe', (topics, client) => {
    for (const t of topics) subs.get(client?.id ?? '')?.delete(t);
  });
  aedes.on('clientDisconnect', (client) => subs.delete(client.id));
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    // Small MQTT packets must not wait for Nagle's algorithm (tens of ms on loopback).
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    aedes.handle(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  let closed = false;
  const auth = credentials
    ? `${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@`
    : '';
  return {
    url: `mqtt://${auth}${host}:${bound}`,
    port: bound,
    subscriptions: () => new Map([...subs].map(([id, set]) => [id, [...set]])),
    async close() {
      if (closed) return;
      closed = true;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
    },
  };
}
