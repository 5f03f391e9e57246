/**
 * The simulator against real Zigbee2MQTT 2.14.1 for the requests of groups, bindings, the network
 * map and firmware updates (as fidelity.test.ts does for devices): each observation is made the
 * same way on both and reduced to what the gateway's driver relies on, and the expected value is
 * the one real Zigbee2MQTT gives (OBSERVED.md).
 */
import { COLOUR_LIGHT, REMOTE, TWO_GANG_SWITCH } from './fake/devices.ts';
import { devicesIn, namesOf, type Observation, observeBoth, placeholders, type Target } from './fidelity-targets.ts';
import { on, type Recorded, retainedOn } from './recorder.ts';

const GROUP = 'fidelity group';
const keys = (o: unknown) => Object.keys(o as object).sort();

/** Publishes a bridge request and waits for its answer. */
async function ask(t: Target, what: string, body: Record<string, unknown>): Promise<Recorded> {
  const from = t.rec.mark();
  await t.rec.publish(`${t.base}/bridge/request/${what}`, body);
  return t.rec.waitFor(on(`${t.base}/bridge/response/${what}`), from);
}

const groups = async (t: Target) => (await retainedOn(t.url, `${t.base}/bridge/groups`)).json as any[];

/** What each observation gives on real Zigbee2MQTT 2.14.1; the simulator must give the same. */
const observations: Observation[] = [
  [
    'group/add answers its name and id, bridge/groups lists it with no member, and a name in use is refused',
    async (t) => {
      const added = (await ask(t, 'group/add', { friendly_name: GROUP, transaction: 'ga-1' })).json as any;
      const listedGroup = (await groups(t)).find((g) => g.friendly_name === GROUP);
      const refused = (await ask(t, 'group/add', { friendly_name: GROUP, transaction: 'ga-2' })).json;
      return {
        added: { ...added, data: { ...added.data, id: typeof added.data.id } },
        listed: { keys: keys(listedGroup), members: listedGroup?.members },
        refused,
      };
    },
    {
      added: { data: { friendly_name: GROUP, id: 'number' }, status: 'ok', transaction: 'ga-1' },
      listed: { keys: ['friendly_name', 'id', 'members', 'scenes'], members: [] },
      refused: {
        data: {},
        error: "friendly_name 'fidelity group' is already in use",
        status: 'error',
        transaction: 'ga-2',
      },
    },
  ],
  [
    'group/members/add answers the device, endpoint and group, the list shows the member, and unknown names are refused',
    async (t) => {
      const names = namesOf(t, COLOUR_LIGHT);
      const added = await ask(t, 'group/members/add', { group: GROUP, device: names.friendly, transaction: 'gm-1' });
      const member = (await groups(t)).find((g) => g.friendly_name === GROUP)?.members[0];
      const noDevice = (await ask(t, 'group/members/add', { group: GROUP, device: 'nope', transaction: 'gm-2' })).json;
      const noGroup = (
        await ask(t, 'group/members/add', { group: 'nogroup', device: names.friendly, transaction: 'gm-3' })
      ).json;
      return {
        added: JSON.parse(placeholders(names, added.text)),
        member: { keys: keys(member), ieee: member?.ieee_address === names.ieee, endpoint: typeof member?.endpoint },
        noDevice,
        noGroup,
      };
    },
    {
      added: { data: { device: '<name>', endpoint: 'default', group: GROUP }, status: 'ok', transaction: 'gm-1' },
      member: { keys: ['endpoint', 'ieee_address'], ieee: true, endpoint: 'number' },
      noDevice: { data: {}, error: "Device 'nope' does not exist", status: 'error', transaction: 'gm-2' },
      noGroup: { data: {}, error: "Group 'nogroup' does not exist", status: 'error', transaction: 'gm-3' },
    },
  ],
  [
    "a command to the group's set topic is followed by the group's state and its member's",
    async (t) => {
      const light = t.friendly(COLOUR_LIGHT);
      const from = t.rec.mark();
      await t.rec.publish(`${t.base}/${GROUP}/set`, { state: 'OFF' });
      const group = await t.rec.waitFor(on(`${t.base}/${GROUP}`), from);
      const member = await t.rec.waitFor(
        on(`${t.base}/${light}`, (s) => s.state === 'OFF'),
        from,
      );
      return { group: group.json, member: (member.json as any).state };
    },
    { group: { state: 'OFF' }, member: 'OFF' },
  ],
  [
    'group/rename answers from, to and homeassistant_rename; group/remove answers the id and force; an unknown group is refused',
    async (t) => {
      const renamed = (await ask(t, 'group/rename', { from: GROUP, to: 'fidelity lounge', transaction: 'gr-1' })).json;
      const removed = (await ask(t, 'group/remove', { id: 'fidelity lounge', transaction: 'gr-2' })).json;
      const unknown = (await ask(t, 'group/remove', { id: 'fidelity lounge', transaction: 'gr-3' })).json;
      const left = (await groups(t)).some((g) => g.friendly_name === 'fidelity lounge');
      return { renamed, removed, unknown, left };
    },
    {
      renamed: {
        data: { from: GROUP, homeassistant_rename: false, to: 'fidelity lounge' },
        status: 'ok',
        transaction: 'gr-1',
      },
      removed: { data: { force: false, id: 'fidelity lounge' }, status: 'ok', transaction: 'gr-2' },
      unknown: { data: {}, error: "Group 'fidelity lounge' does not exist", status: 'error', transaction: 'gr-3' },
      left: false,
    },
  ],
  [
    'device/bind answers the clusters bound and failed, bridge/devices lists the binding, a press reaches the light; clusters that do not match bind nothing',
    async (t) => {
      const remote = namesOf(t, REMOTE);
      const light = namesOf(t, COLOUR_LIGHT);
      const body = { from: remote.friendly, to: light.friendly, clusters: ['genOnOff'] };
      const bound = await ask(t, 'device/bind', { ...body, transaction: 'b-1' });
      const entry = devicesIn(await retainedOn(t.url, `${t.base}/bridge/devices`)).find(
        (d) => d.ieee_address === remote.ieee,
      );
      const binding = Object.values(entry?.endpoints ?? {})
        .flatMap((e: any) => e.bindings)
        .find((b: any) => b.target?.ieee_address === light.ieee);
      const from = t.rec.mark();
      await t.press(REMOTE);
      const toggled = await t.rec.waitFor(on(`${t.base}/${light.friendly}`), from);
      const nothing = (await ask(t, 'device/bind', { ...body, clusters: ['hvacThermostat'], transaction: 'b-2' })).json;
      const noSource = (await ask(t, 'device/bind', { ...body, from: 'nope', transaction: 'b-3' })).json;
      const unbound = await ask(t, 'device/unbind', { ...body, transaction: 'b-4' });
      const text = (r: Recorded) => placeholders(light, placeholders(remote, r.text).replace('<name>', '<remote>'));
      return {
        bound: JSON.parse(text(bound)),
        binding: { cluster: binding?.cluster, target: keys(binding?.target), type: binding?.target?.type },
        toggled: typeof (toggled.json as any).state,
        nothing,
        noSource,
        unbound: JSON.parse(text(unbound)),
      };
    },
    {
      bound: {
        data: { clusters: ['genOnOff'], failed: [], from: '<remote>', from_endpoint: 'default', to: '<name>' },
        status: 'ok',
        transaction: 'b-1',
      },
      binding: { cluster: 'genOnOff', target: ['endpoint', 'ieee_address', 'type'], type: 'endpoint' },
      toggled: 'string',
      nothing: { data: {}, error: 'Nothing to bind', status: 'error', transaction: 'b-2' },
      noSource: { data: {}, error: "Source device 'nope' does not exist", status: 'error', transaction: 'b-3' },
      unbound: {
        data: { clusters: ['genOnOff'], failed: [], from: '<remote>', from_endpoint: 'default', to: '<name>' },
        status: 'ok',
        transaction: 'b-4',
      },
    },
  ],
  [
    'networkmap of type raw answers nodes and links in the same form, with routes; another type is refused',
    async (t) => {
      const r = (await ask(t, 'networkmap', { type: 'raw', routes: true, transaction: 'n-1' })).json as any;
      const value = r.data.value;
      const node = value.nodes.find((n: any) => n.ieeeAddr === t.ieee(COLOUR_LIGHT));
      const withRoutes = value.links.find((l: any) => l.routes.length > 0);
      const svg = (await ask(t, 'networkmap', { type: 'svg', transaction: 'n-2' })).json;
      return {
        data: keys(r.data),
        routes: r.data.routes,
        value: keys(value),
        node: keys(node),
        coordinator: value.nodes.filter((n: any) => n.type === 'Coordinator').length,
        link: keys(value.links[0]),
        route: keys(withRoutes?.routes[0]),
        svg,
      };
    },
    {
      data: ['routes', 'type', 'value'],
      routes: true,
      value: ['links', 'nodes'],
      node: [
        'definition',
        'failed',
        'friendlyName',
        'ieeeAddr',
        'lastSeen',
        'manufacturerName',
        'modelID',
        'networkAddress',
        'type',
      ],
      coordinator: 1,
      link: [
        'depth',
        'deviceType',
        'linkquality',
        'lqi',
        'permitJoining',
        'relationship',
        'routes',
        'rxOnWhenIdle',
        'source',
        'sourceIeeeAddr',
        'sourceNwkAddr',
        'target',
        'targetIeeeAddr',
      ],
      route: [
        'destinationAddress',
        'manyToOne',
        'memoryConstrained',
        'nextHopAddress',
        'reserved1',
        'routeRecordRequired',
        'status',
      ],
      svg: {
        data: {},
        error: "Type 'svg' not supported, allowed are: raw,graphviz,plantuml",
        status: 'error',
        transaction: 'n-2',
      },
    },
  ],
  [
    "a firmware check is refused for a model without OTA; it answers update_available and the device's update state says it",
    async (t) => {
      const sw = namesOf(t, TWO_GANG_SWITCH);
      const url = t.otaUrl ? { url: t.otaUrl } : {};
      const refused = await ask(t, 'device/ota_update/check', { id: sw.friendly, transaction: 'o-1' });
      const light = namesOf(t, COLOUR_LIGHT);
      const from = t.rec.mark();
      const checked = (await ask(t, 'device/ota_update/check', { id: light.friendly, ...url, transaction: 'o-2' }))
        .json as any;
      const state = (
        await t.rec.waitFor(
          on(`${t.base}/${light.friendly}`, (s) => s.update !== undefined),
          from,
        )
      ).json as any;
      return {
        refused: JSON.parse(placeholders(sw, refused.text)),
        checked: { data: keys(checked.data), available: checked.data.update_available },
        update: {
          keys: keys(state.update),
          state: state.update.state,
          newer: state.update.latest_version > state.update.installed_version,
        },
      };
    },
    {
      refused: { data: {}, error: "Device '<name>' does not support OTA updates", status: 'error', transaction: 'o-1' },
      checked: { data: ['downgrade', 'id', 'source', 'update_available'], available: true },
      update: {
        keys: ['installed_version', 'latest_release_notes', 'latest_source', 'latest_version', 'state'],
        state: 'available',
        newer: true,
      },
    },
  ],
  [
    'ota_update/update/abort answers at once and shows the image available again; the update it stopped then fails, naming the abort',
    async (t) => {
      const light = namesOf(t, COLOUR_LIGHT);
      const url = t.otaUrl ? { url: t.otaUrl } : {};
      const hold = await t.holdUpdate(COLOUR_LIGHT);
      const from = t.rec.mark();
      await t.rec.publish(`${t.base}/bridge/request/device/ota_update/update`, {
        id: light.friendly,
        ...url,
        transaction: 'ab-1',
      });
      await hold.held;
      const mark = t.rec.mark();
      const aborted = await ask(t, 'device/ota_update/update/abort', { id: light.friendly, transaction: 'ab-2' });
      const shown = (
        await t.rec.waitFor(
          on(`${t.base}/${light.friendly}`, (s) => s.update?.state !== 'updating'),
          mark,
        )
      ).json as any;
      // The device asks for its next block: the coordinator answers ABORT.
      await hold.release();
      const failed = await t.rec.waitFor(on(`${t.base}/bridge/response/device/ota_update/update`), from);
      return {
        aborted: JSON.parse(placeholders(light, aborted.text)),
        shown: { keys: keys(shown.update), state: shown.update.state },
        failed: JSON.parse(placeholders(light, failed.text)),
      };
    },
    {
      aborted: { data: { id: '<name>' }, status: 'ok', transaction: 'ab-2' },
      shown: {
        keys: ['installed_version', 'latest_release_notes', 'latest_source', 'latest_version', 'state'],
        state: 'available',
      },
      failed: {
        data: {},
        error: "OTA update of '<name>' failed (OTA for device <ieee> was aborted)",
        status: 'error',
        transaction: 'ab-1',
      },
    },
  ],
  [
    "a firmware update shows its progress in the device's update state, then idle with the new version, and answers from and to",
    async (t) => {
      const light = namesOf(t, COLOUR_LIGHT);
      const url = t.otaUrl ? { url: t.otaUrl } : {};
      const from = t.rec.mark();
      const done = (await ask(t, 'device/ota_update/update', { id: light.friendly, ...url, transaction: 'u-1' }))
        .json as any;
      const updates = t.rec
        .since(
          from,
          on(`${t.base}/${light.friendly}`, (s) => s.update !== undefined),
        )
        .map((m) => (m.json as any).update);
      const progress = updates.filter((u) => u.state === 'updating').map((u) => u.progress);
      const last = updates.at(-1);
      return {
        answer: {
          data: keys(done.data),
          from: keys(done.data.from),
          to: keys(done.data.to),
          newer: done.data.to.file_version > done.data.from.file_version,
        },
        progress: {
          first: progress[0],
          last: progress.at(-1),
          keys: keys(updates.find((u) => u.state === 'updating')),
        },
        last: {
          state: last?.state,
          same: last?.installed_version === last?.latest_version,
          installed: last?.installed_version === done.data.to.file_version,
        },
      };
    },
    {
      answer: {
        data: ['from', 'id', 'to'],
        from: ['date_code', 'file_version', 'software_build_id'],
        to: ['date_code', 'file_version', 'software_build_id'],
        newer: true,
      },
      progress: {
        first: 0,
        last: 100,
        keys: [
          'installed_version',
          'latest_release_notes',
          'latest_source',
          'latest_version',
          'progress',
          'remaining',
          'state',
        ],
      },
      last: { state: 'idle', same: true, installed: true },
    },
  ],
  [
    "an abort with no update running is refused, on the update's topic",
    async (t) => {
      const light = namesOf(t, COLOUR_LIGHT);
      const url = t.otaUrl ? { url: t.otaUrl } : {};
      const from = t.rec.mark();
      await t.rec.publish(`${t.base}/bridge/request/device/ota_update/update/abort`, {
        id: light.friendly,
        ...url,
        transaction: 'ab-3',
      });
      const answer = await t.rec.waitFor(on(`${t.base}/bridge/response/device/ota_update/update`), from);
      return JSON.parse(placeholders(light, answer.text));
    },
    {
      data: {},
      error: "No OTA in progress to abort for device '<name>'",
      status: 'error',
      transaction: 'ab-3',
    },
  ],
];

observeBoth(
  'the simulator and real Zigbee2MQTT, observed the same way: groups, bindings, the map, firmware',
  observations,
);
