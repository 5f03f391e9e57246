/** The embedded MQTT broker (aedes) of the simulated network, on loopback only. */
import { createServer, type Server, type Socket } from 'node:net';
import { Aedes } from 'aedes';

export interface Broker {
  url: string;
  port: number;
  /** Stops accepting and drops every client (retained messages are lost, as with a broker restart). */
  close(): Promise<void>;
}

/** Starts aedes on 127.0.0.1 (`port` 0 picks a free one). */
export async function startBroker(port = 0, host = '127.0.0.1'): Promise<Broker> {
  const aedes = await Aedes.createBroker();
  const sockets = new Set<Socket>();
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
    async close() {
      if (closed) return;
      closed = true;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
    },
  };
}
