/**
 * The stream soak: while a third party reports states as fast as the gateway takes them,
 * clients of the event stream are cut at random moments and resume with Last-Event-ID, as
 * EventSource does (an event counts once its frame is complete). Each of them must end with
 * exactly the events of a client that was never cut: none lost, none twice, in order.
 */

import { rmSync } from 'node:fs';
import { type ClientRequest, request } from 'node:http';
import { tempDir } from '../../test/helpers/foundation.ts';
import { endpoint } from '../../test/helpers/thirdparty.ts';
import { type GatewayProcess, launchGateway, linkToken } from './gateway-process.ts';
import { Random } from './random.ts';

export interface StreamSoakOptions {
  /** Cuts in all, spread over the clients. */
  cuts: number;
  clients?: number;
  seed: number;
  log?: (line: string) => void;
}

export interface StreamSoakFigures {
  cuts: number;
  events: number;
  lost: number;
  duplicated: number;
  outOfOrder: number;
  gaps: number;
  seconds: number;
}

/** One stream client: its ids in the order received; `cut` ends its connection now. */
class Reader {
  readonly ids: number[] = [];
  gaps = 0;
  private req?: ClientRequest;
  private buffer = '';

  constructor(
    private readonly url: string,
    private readonly path: string,
  ) {}

  get last(): number | undefined {
    return this.ids[this.ids.length - 1];
  }

  /** Opens (or reopens, with Last-Event-ID) the stream; resolves once its head is in. */
  open(): Promise<void> {
    this.buffer = '';
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.last !== undefined) headers['last-event-id'] = String(this.last);
    return new Promise((resolve, reject) => {
      const req = request(`${this.url}${this.path}`, { headers });
      this.req = req;
      req.on('error', () => resolve());
      req.on('response', (res) => {
        if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (this.req !== req) return;
          this.buffer += chunk;
          const parts = this.buffer.split('\n\n');
          this.buffer = parts.pop() as string;
          for (const frame of parts) {
            const id = /^id: (\d+)$/m.exec(frame)?.[1];
            if (!id) continue;
            if (/^event: bridge#v2#eventsLost$/m.test(frame)) this.gaps++;
            this.ids.push(Number(id));
          }
        });
        res.on('error', () => {});
        resolve();
      });
      req.end();
    });
  }

  /** Cuts the connection, dropping a frame half received (EventSource does the same). */
  cut(): void {
    const req = this.req;
    this.req = undefined;
    req?.destroy();
  }
}

/** Runs the soak on a gateway of its own; the data folder is removed at the end. */
export async function runStreamSoak(opts: StreamSoakOptions): Promise<StreamSoakFigures> {
  const log = opts.log ?? (() => {});
  const r = new Random(opts.seed);
  const dataDir = tempDir('opencube-streams-');
  let g: GatewayProcess | undefined;
  const started = performance.now();
  try {
    g = await launchGateway({ dataDir });
    const gw = g;
    const token = await linkToken(gw, 'streams');
    const path = `/open-api/v2/sse/bridge?access_token=${encodeURIComponent(token)}`;
    const send = (name: string, endpointRef: unknown, payload: unknown) =>
      fetch(`${gw.url}/open-api/v2/rest/thirdparty/event`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          event: { header: { name, message_id: crypto.randomUUID(), version: '1' }, endpoint: endpointRef, payload },
        }),
      }).then((x) => x.json() as Promise<any>);
    const sync = await send('DiscoveryRequest', undefined, {
      endpoints: [endpoint('soak-lamp', 'http://127.0.0.1:9/x'), endpoint('soak-lamp-2', 'http://127.0.0.1:9/x')],
    });
    const serials: string[] = sync.payload.endpoints.map((e: { serial_number: string }) => e.serial_number);

    const reference = new Reader(gw.url, path);
    await reference.open();
    const readers = Array.from({ length: opts.clients ?? 8 }, () => new Reader(gw.url, path));
    await Promise.all(readers.map((x) => x.open()));

    let publishing = true;
    let published = 0;
    const publisher = async (serial: string) => {
      for (let n = 0; publishing; n++) {
        await send(
          'DeviceStatesChangeReport',
          { serial_number: serial },
          { state: { brightness: { brightness: n % 101 } } },
        );
        published++;
      }
    };
    const publishers = serials.map(publisher);
    let cuts = 0;
    const cutter = async (reader: Reader, count: number) => {
      for (let i = 0; i < count; i++) {
        await new Promise((done) => setTimeout(done, r.int(1, 40)));
        reader.cut();
        cuts++;
        if (r.chance(0.3)) await new Promise((done) => setTimeout(done, r.int(1, 30)));
        await reader.open();
      }
    };
    const each = Math.ceil(opts.cuts / readers.length);
    await Promise.all(readers.map((x) => cutter(x, each)));
    publishing = false;
    await Promise.all(publishers);
    log(`${cuts} cuts while ${published} reports were published`);
    // Every reader catches up with the reference (the last event it has).
    const until = Date.now() + 30_000;
    const last = () => reference.last ?? 0;
    while (Date.now() < until && readers.some((x) => (x.last ?? 0) < last()))
      await new Promise((d) => setTimeout(d, 20));
    const want = reference.ids;
    let lost = 0;
    let duplicated = 0;
    let outOfOrder = 0;
    let gaps = reference.gaps;
    for (const reader of readers) {
      gaps += reader.gaps;
      const seen = new Set<number>();
      for (let i = 0; i < reader.ids.length; i++) {
        const id = reader.ids[i] as number;
        if (seen.has(id)) duplicated++;
        seen.add(id);
        if (i > 0 && id <= (reader.ids[i - 1] as number)) outOfOrder++;
      }
      // Events after the reader's first one that the reference saw must all be there.
      const first = reader.ids[0] ?? Number.POSITIVE_INFINITY;
      for (const id of want) if (id >= first && !seen.has(id)) lost++;
      reader.cut();
    }
    reference.cut();
    return {
      cuts,
      events: want.length,
      lost,
      duplicated,
      outOfOrder,
      gaps,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await g?.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}
