/**
 * The simulator against real Zigbee2MQTT 2.14.1: every behaviour the simulator copies from real
 * Zigbee2MQTT (issue 8, point 6) is observed the SAME way on both, over MQTT, with the recorder of
 * the harness, and the two observations must agree. Each observation is reduced to what the
 * gateway's driver relies on (names and addresses, which differ between the two networks, are
 * replaced by placeholders), and the expected value is the one real Zigbee2MQTT gives (OBSERVED.md),
 * so that the two cannot agree on nothing.
 */
import { COLOUR_LIGHT, THERMOSTAT, TWO_GANG_SWITCH } from './fake/devices.ts';
import { JOINING, listed, namesOf, type Observation, observeBoth, placeholders } from './fidelity-targets.ts';
import { on, retainedNow, retainedOn } from './recorder.ts';

/** What each observation gives on real Zigbee2MQTT 2.14.1; the simulator must give the same. */
const observations: Observation[] = [
  [
    'permit_join without a time is refused as an invalid payload',
    async (t) => {
      const from = t.rec.mark();
      await t.rec.publish(`${t.base}/bridge/request/permit_join`, { value: false, transaction: 'close-1' });
      return (await t.rec.waitFor(on(`${t.base}/bridge/response/permit_join`), from)).json;
    },
    { data: {}, error: 'Invalid payload', status: 'error', transaction: 'close-1' },
  ],
  [
    'a joining device is listed while it is interviewed with no definition key and type Unknown, then with its model',
    async (t) => {
      const from = t.rec.mark();
      await t.rec.publish(`${t.base}/bridge/request/permit_join`, { time: 60, transaction: 'open-1' });
      const opened = (await t.rec.waitFor(on(`${t.base}/bridge/response/permit_join`), from)).json;
      const info = (await retainedOn(t.url, `${t.base}/bridge/info`)).json as any;
      await t.tryJoin(JOINING);
      const event = (type: string, status?: string) =>
        on(`${t.base}/bridge/event`, (e) => e.type === type && (status === undefined || e.data.status === status));
      const started = await t.rec.waitFor(event('device_interview', 'started'), from);
      const shape = (e: any) =>
        e && {
          type: e.type,
          supported: e.supported,
          interview_completed: e.interview_completed,
          interview_state: e.interview_state,
          definition: 'definition' in e ? e.definition?.model : 'no definition key',
        };
      const joined = (started.json as any).data.ieee_address;
      const during = (await listed(t)).find((e) => e.ieee_address === joined);
      await t.rec.waitFor(event('device_interview', 'successful'), started.seq);
      const done = (await listed(t)).find((e) => e.ieee_address === joined);
      const close = t.rec.mark();
      await t.rec.publish(`${t.base}/bridge/request/permit_join`, { time: 0, transaction: 'close-2' });
      const closed = (await t.rec.waitFor(on(`${t.base}/bridge/response/permit_join`), close)).json;
      const after = (await retainedOn(t.url, `${t.base}/bridge/info`)).json as any;
      return {
        opened,
        infoOpen: [info.permit_join, typeof info.permit_join_end],
        named: (started.json as any).data.friendly_name === joined,
        during: shape(during),
        done: shape(done),
        closed,
        infoClosed: [after.permit_join, 'permit_join_end' in after],
      };
    },
    {
      opened: { data: { time: 60 }, status: 'ok', transaction: 'open-1' },
      infoOpen: [true, 'number'],
      named: true,
      during: {
        type: 'Unknown',
        supported: false,
        interview_completed: false,
        interview_state: 'IN_PROGRESS',
        definition: 'no definition key',
      },
      done: {
        type: 'EndDevice',
        supported: true,
        interview_completed: true,
        interview_state: 'SUCCESSFUL',
        definition: JOINING.expectedModel,
      },
      closed: { data: { time: 0 }, status: 'ok', transaction: 'close-2' },
      infoClosed: [false, false],
    },
  ],
  [
    'a /set is followed by the new state at once, and device state is not retained',
    async (t) => {
      const from = t.rec.mark();
      await t.rec.publish(`${t.base}/${t.friendly(COLOUR_LIGHT)}/set`, { brightness: 77 });
      const first = (await t.rec.waitFor(on(`${t.base}/${t.friendly(COLOUR_LIGHT)}`), from)).json as any;
      const kept = await retainedNow(t.url, `${t.base}/${t.friendly(COLOUR_LIGHT)}`);
      return { first: [first.state, first.brightness], retained: kept?.text };
    },
    { first: ['ON', 77], retained: undefined },
  ],
  [
    'a /get publishes one message per attribute read, each with the whole state',
    async (t) => {
      const topic = `${t.base}/${t.friendly(COLOUR_LIGHT)}`;
      const from = t.rec.mark();
      await t.rec.publish(`${topic}/get`, { state: '', brightness: '' });
      const firstRead = await t.rec.waitFor(on(topic), from);
      const secondRead = await t.rec.waitFor(on(topic), firstRead.seq + 1);
      return [firstRead, secondRead].map((m: any) => [m.json.state, m.json.brightness]);
    },
    [
      ['ON', 77],
      ['ON', 77],
    ],
  ],
  [
    'a /set the device does not answer is one error line with the namespace as a prefix and the base key',
    async (t) => {
      const sw = TWO_GANG_SWITCH;
      await t.failNext(sw);
      const from = t.rec.mark();
      await t.rec.publish(`${t.base}/${t.friendly(sw)}/set`, { state_l2: 'OFF' });
      const log = await t.rec.waitFor(
        on(`${t.base}/bridge/logging`, (l) => l.level === 'error' && String(l.message).includes(t.friendly(sw))),
        from,
      );
      const entry = log.json as Record<string, string>;
      const message = placeholders(namesOf(t, sw), String(entry.message));
      const stateBefore = t.rec
        .since(
          from,
          on(`${t.base}/${t.friendly(sw)}`, (s) => s.state_l2 === 'OFF'),
        )
        .filter((m) => m.seq < log.seq);
      return {
        keys: Object.keys(entry).sort(),
        level: entry.level,
        message: /^z2m: Publish 'set' 'state' to '<name>' failed: 'Error: ZCL command <ieee>\/\d+ /.test(message)
          ? 'z2m: Publish ... failed: Error: ZCL command ...'
          : message,
        stateBefore: stateBefore.length,
      };
    },
    {
      keys: ['level', 'message'],
      level: 'error',
      message: 'z2m: Publish ... failed: Error: ZCL command ...',
      stateBefore: 0,
    },
  ],
  [
    'a device that leaves by itself is out of the retained list when device_leave arrives, its availability kept',
    async (t) => {
      const d = THERMOSTAT;
      const names = namesOf(t, d);
      const from = t.rec.mark();
      await t.leave(d);
      const left = await t.rec.waitFor(
        on(`${t.base}/bridge/event`, (e) => e.type === 'device_leave'),
        from,
      );
      const list = await listed(t);
      const availability = await retainedNow(t.url, `${t.base}/${names.friendly}/availability`);
      return {
        event: JSON.parse(placeholders(names, left.text)),
        listed: list.some((e) => e.ieee_address === names.ieee),
        availability: availability?.json,
      };
    },
    {
      event: { data: { friendly_name: '<name>', ieee_address: '<ieee>' }, type: 'device_leave' },
      listed: false,
      availability: { state: 'online' },
    },
  ],
  [
    'a removal is answered after the list without the device, and the availability stays retained',
    async (t) => {
      const names = namesOf(t, JOINING);
      const missing = t.rec.mark();
      await t.rec.publish(`${t.base}/bridge/request/device/remove`, { id: 'no_such_device', transaction: 'rm-0' });
      const unknown = (await t.rec.waitFor(on(`${t.base}/bridge/response/device/remove`), missing)).json;
      const from = t.rec.mark();
      await t.rec.publish(`${t.base}/bridge/request/device/remove`, { id: names.ieee, transaction: 'rm-1' });
      const done = await t.rec.waitFor(on(`${t.base}/bridge/response/device/remove`), from);
      const list = await listed(t);
      const availability = await retainedNow(t.url, `${t.base}/${names.friendly}/availability`);
      return {
        unknown,
        done: JSON.parse(placeholders(names, done.text)),
        listed: list.some((e) => e.ieee_address === names.ieee),
        availability: availability?.json,
      };
    },
    {
      unknown: { data: {}, error: "Device 'no_such_device' does not exist", status: 'error', transaction: 'rm-0' },
      done: {
        data: { block: false, clear_cache: false, force: false, id: '<ieee>', keep_config: false },
        status: 'ok',
        transaction: 'rm-1',
      },
      listed: false,
      availability: { state: 'online' },
    },
  ],
];

observeBoth('the simulator and real Zigbee2MQTT, observed the same way', observations);
