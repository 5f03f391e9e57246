/**
 * The wire shapes of the Zigbee upkeep routes and events in the catalog's schema language: what
 * the routes answer (checked against every answer in tests, and the OpenAPI document) and what
 * the events carry (the AsyncAPI document). They follow the views of src/core/zigbee-upkeep/.
 */
import { any, arr, bool, int, num, obj, oneOf, opt, type Schema, str, tagged } from '../../catalog/schema.ts';

export const firmwareView = obj({
  serial_number: str(),
  supported: bool('whether its model takes firmware updates'),
  state: oneOf('unknown', 'checking', 'idle', 'available', 'queued', 'updating'),
  installed_version: opt(int({ doc: 'the OTA file version it runs' })),
  latest_version: opt(int({ doc: 'the newest OTA file version the index offers it' })),
  progress: opt(num({ min: 0, max: 100, unit: '%' })),
  remaining: opt(num({ min: 0, unit: 's', doc: 'an estimate from the pace so far' })),
  position: opt(int({ min: 1, doc: 'its place in the queue (1: next)' })),
  firmware_version: str({ doc: 'the software build it reports (D3)' }),
  checked_at: opt(str({ doc: 'when the last check answered (ISO 8601)' })),
});

const groupMember = obj({
  serial_number: opt(str()),
  channel: opt(str()),
  ieee_address: str(),
  endpoint: int(),
  name: opt(str()),
});

export const groupView = obj({
  group: str({ doc: '`<network>/<Zigbee group id>`' }),
  network: str(),
  id: int({ min: 1, max: 0xfff7 }),
  name: str(),
  serial_number: opt(str({ doc: 'the device it is listed as (while its members share a capability)' })),
  members: arr(groupMember),
  capabilities: arr(any('capability objects'), { doc: 'what its members share' }),
  display_category: str(),
});

export const bindingView = obj({
  cluster: str(),
  source_endpoint: int(),
  source_channel: opt(str()),
  target: tagged('type', {
    device: obj({
      type: oneOf('device'),
      serial_number: opt(str()),
      channel: opt(str()),
      ieee_address: str(),
      endpoint: int(),
    }),
    coordinator: obj({ type: oneOf('coordinator') }),
    group: obj({ type: oneOf('group'), group: str(), serial_number: opt(str()) }),
  }),
});

const address = obj({ ieee_address: str(), network_address: int() });

export const networkMapView = obj({
  network: str(),
  scanned_at: str({ doc: 'ISO 8601' }),
  routes: bool('whether the routing tables were read'),
  nodes: arr(
    obj({
      ieee_address: str(),
      network_address: int(),
      type: str({ doc: '`Coordinator`, `Router`, `EndDevice`' }),
      failed: arr(str(), { doc: 'what could not be read of it (`lqi`, `routing_table`)' }),
      last_seen: opt(num({ doc: 'epoch ms' })),
      serial_number: opt(str()),
      name: opt(str()),
      online: opt(bool()),
    }),
  ),
  links: arr(
    obj({
      source: address,
      target: address,
      lqi: int({ min: 0, max: 255 }),
      depth: int(),
      relationship: oneOf('parent', 'child', 'sibling', 'none', 'previous_child'),
      device_type: oneOf('coordinator', 'router', 'end_device', 'unknown'),
      routes: arr(obj({ destination_address: int(), next_hop_address: int(), status: str() })),
    }),
  ),
});

export const networkStatus = obj({
  network: str(),
  driver: str(),
  reachable: bool(),
  reason: opt(str()),
  scanning: opt(str({ doc: 'a scan runs, since (ISO 8601)' })),
  updating: opt(str({ doc: 'the device whose firmware is being installed' })),
});

export const scanStarted = obj({
  network: str(),
  state: oneOf('scanning'),
  since: str({ doc: 'ISO 8601' }),
  routes: bool(),
});

/** The events of the upkeep, with the schema of their `data`, as both streams show them. */
export const ZIGBEE_EVENTS = {
  'zigbee#firmware': {
    summary:
      "A Zigbee device's firmware: a check (`checking`, then `idle`, `available` or `failed`), an update `queued`, its progress (`updating`), its end (`updated`, `failed` with the backend's reason, `cancelled`)",
    data: obj({
      payload: obj({
        serial_number: str(),
        state: oneOf('checking', 'idle', 'available', 'queued', 'updating', 'updated', 'failed', 'cancelled'),
        installed_version: opt(int()),
        latest_version: opt(int()),
        progress: opt(num({ min: 0, max: 100, unit: '%' })),
        remaining: opt(num({ min: 0, unit: 's' })),
        position: opt(int({ min: 1 })),
        reason: opt(str()),
        firmware_version: opt(str()),
      }),
    }),
  },
  'zigbee#group': {
    summary: 'A Zigbee group was created, changed (name, members, what they share) or removed',
    data: obj({ payload: obj({ action: oneOf('created', 'changed', 'removed'), group: groupView }) }),
  },
  'zigbee#bindings': {
    summary: "A Zigbee device's bindings changed (a bind or an unbind): all of them",
    data: obj({ payload: obj({ serial_number: str(), bindings: arr(bindingView) }) }),
  },
  'zigbee#networkMap': {
    summary: "A scan of a Zigbee network's map started, finished (read it with GET zigbee/map) or failed",
    data: obj({
      payload: obj({
        network: str(),
        state: oneOf('scanning', 'done', 'failed'),
        reason: opt(str()),
        nodes: opt(int()),
        links: opt(int()),
      }),
    }),
  },
} as const satisfies Record<string, { summary: string; data: Schema }>;
