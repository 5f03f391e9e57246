/** The embedded MQTT broker (aedes) of the simulated network, on loopback only. */
import { createServer, type Server, type Socket } from 'node:net';
import { Aedes } from 'aedes';

export interface Broker {
  url: string;
  port: number;
  /** The topic filters each connected client has subscribed to, by client id (what a client reads). */
  subscriptions(): Map<string, string[]>;
  /** Stops accepting and drops every client (retained messages are lost, as with a broker restart). */
  close(): Promise<void>;
}

/** Starts aedes on 127.0.0.1 (`port` 0 picks a free one). */
export async function startBroker(port = 0, host = '127.0.0.1'): Promise<Broker> {
  const aedes = await Aedes.createBroker();
  // aedes handles the packets of one socket read concurrently: a retained PUBLISH waits for its
  // store while a later plain one is delivered at once, and aedes' duplicate filter (meant for
  // brokers in a cluster) then drops the retained one as "older" for every subscriber: a
  // simulated Zigbee2MQTT coming back lost its bridge/state, devices and availability. One broker
  // has no duplicates to filter, so the filter is off (it applies only to packets with a broker
  // id). Clients of this broker must not hold overlapping subscriptions.
  aedes.id = '';
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
  return {
    url: `mqtt://${host}:${bound}`,
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
