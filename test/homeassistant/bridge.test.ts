/**
 * The Home Assistant bridge end to end, against Debian's mosquitto on 127.0.0.1: the gateway with
 * the bridge on, Zigbee devices of the simulated Zigbee2MQTT network (the same Zigbee2MQTT driver
 * `sim` mode runs, on a network the test can act on) and third-party devices of a small service.
 * A test MQTT client plays Home Assistant: it reads every discovery config and state as Home
 * Assistant does, checks them against the documented schema, sends commands, and sees the states,
 * the devices (D3) and the broker's retained topics follow.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type SimNetwork, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { call, listDevices, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { endpoint, type Service, sendEvent, startService } from '../helpers/thirdparty.ts';
import { HaClient } from './ha-client.ts';
import { checkConfig } from './ha-schema.ts';
import { type Mosquitto, startMosquitto } from './mosquitto.ts';

let mosquitto: Mosquitto;
let net: SimNetwork;
let g: TestGateway;
let token: string;
let ha: HaClient;
let service: Service;
/** Serial number of the third-party light. */
let third: string;

interface Dev {
  serial_number: string;
  name: string;
  model: string;
  online: boolean;
  state: Record<string, any>;
  tags?: Record<string, unknown>;
}

const list = (): Promise<Dev[]> => listDevices(g.url, token);
const put = (serial: string, body: unknown) => call(g.url, 'PUT', rest('v2', `devices/${serial}`), { token, body });
const state = (serial: string, key: string) => `opencube/${serial}/${key}`;
const command = (serial: string, key: string) => `opencube/${serial}/${key}/set`;

async function byModel(model: string): Promise<Dev & { ieee: string }> {
  const sim = net
    .sim()
    .list()
    .find((d) => d.fixture.model === model);
  assert.ok(sim, `simulated ${model}`);
  const d = (await list()).find((x) => x.model === model && x.name === sim.friendly);
  assert.ok(d, `listed ${model}`);
  return { ...d, ieee: sim.ieee };
}

async function d3(serial: string): Promise<Dev> {
  const d = (await list()).find((x) => x.serial_number === serial);
  assert.ok(d, `${serial} is listed`);
  return d;
}

/** Waits until D3 shows the device in a state `pred` accepts. */
async function untilD3(serial: string, pred: (d: Dev) => boolean, what: string): Promise<Dev> {
  const end = Date.now() + 15_000;
  for (;;) {
    const d = await d3(serial);
    if (pred(d)) return d;
    if (Date.now() > end) throw new Error(`D3 did not show ${what}: ${JSON.stringify(d.state)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Every device of D3 has its connectivity sensor in Home Assistant. */
async function allDiscovered(): Promise<void> {
  const devices = await list();
  await ha.waitFor(
    () => devices.every((d) => ha.deviceConfigs(d.serial_number).some((c) => c.topic.endsWith('_online/config'))),
    `all ${devices.length} devices`,
  );
}

before(async () => {
  mosquitto = await startMosquitto();
  net = await startSimNetwork({
    baseTopics: ['zigbee2mqtt'],
    devices: 33,
    sim: { reportIntervalMs: 0, joinDelayMs: 50, interviewMs: 50 },
  });
  // Home Assistant is there before the gateway: it sees every config as it comes.
  ha = await HaClient.connect(mosquitto.url);
  g = await startGateway({
    overrides: {
      zigbee: { mode: 'z2m', mqtt_url: net.url, permit_join_seconds: 30 },
      homeassistant: { enabled: true, mqtt_url: mosquitto.url },
    },
  });
  token = await g.linkToken();
  service = await startService();
  const r = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('ha-light-1', service.url)] });
  third = r.json.payload.endpoints[0].serial_number;
  const end = Date.now() + 15_000;
  while ((await list()).length < 34) {
    if (Date.now() > end) throw new Error('the 33 Zigbee devices and the third-party light did not all come');
    await new Promise((r2) => setTimeout(r2, 25));
  }
  await allDiscovered();
});

after(async () => {
  await ha?.close();
  await g?.stop();
  await service?.close();
  await net?.stop();
  await mosquitto?.stop();
});

describe('discovery', () => {
  test('every device of the gateway is one Home Assistant device, under the gateway, with its name, maker and model', async () => {
    const devices = await list();
    assert.equal(devices.length, 34);
    for (const d of devices) {
      const configs = ha.deviceConfigs(d.serial_number);
      assert.ok(configs.length >= 2, `${d.name} has entities beyond its connectivity`);
      for (const c of configs) {
        assert.equal(c.config.device.name, d.name);
        assert.equal(c.config.device.model, d.model);
        assert.equal(c.config.device.via_device, 'opencube_bridge');
      }
      assert.equal(ha.retained.get(`opencube/${d.serial_number}/availability`), 'online');
    }
    const bridge = ha.configs().filter((c) => c.config.device?.identifiers?.includes('opencube_bridge'));
    assert.equal(bridge.length, 1);
    assert.equal(ha.retained.get('opencube/bridge/availability'), 'online');
  });

  test('every config follows the documented keys of its component, and every state is one the component accepts', () => {
    assert.deepEqual(ha.problems(), []);
    const components = new Set(ha.configs().map((c) => c.component));
    for (const c of [
      'light',
      'switch',
      'binary_sensor',
      'sensor',
      'cover',
      'climate',
      'fan',
      'select',
      'button',
      'event',
      'device_automation',
    ])
      assert.ok(components.has(c), `some device is a ${c}`);
  });

  test('sensors carry the device class, unit and state class Home Assistant documents for them', async () => {
    const th = await byModel('WSDCGQ11LM');
    const temperature = ha.entity(th.serial_number, 'sensor', 'temperature').config;
    assert.equal(temperature.device_class, 'temperature');
    assert.equal(temperature.unit_of_measurement, '°C');
    assert.equal(temperature.state_class, 'measurement');
    const battery = ha.entity(th.serial_number, 'sensor', 'battery').config;
    assert.deepEqual(
      [battery.device_class, battery.unit_of_measurement, battery.entity_category],
      ['battery', '%', 'diagnostic'],
    );
    const plug = await byModel('ZNCZ02LM');
    const energy = ha.entity(plug.serial_number, 'sensor', 'power_consumption').config;
    assert.deepEqual(
      [energy.device_class, energy.unit_of_measurement, energy.state_class],
      ['energy', 'kWh', 'total_increasing'],
    );
    assert.equal(ha.retained.get(energy.state_topic), String(plug.state['power-consumption'].rlSummarize / 100));
    const contact = await byModel('MCCGQ11LM');
    assert.equal(ha.entity(contact.serial_number, 'binary_sensor', 'contact').config.device_class, 'opening');
  });
});

describe('commands go through D4', () => {
  test('a dimmable light turned on at 40 % from Home Assistant is on at 40 % on the device, in its state topic and in D3', async () => {
    const lamp = await byModel('LED1836G9');
    const light = ha.entity(lamp.serial_number, 'light').config;
    assert.deepEqual(light.supported_color_modes, ['brightness']);
    await ha.publish(light.command_topic, JSON.stringify({ state: 'ON', brightness: 40 }));
    await ha.waitForState(light.state_topic, (p) => JSON.parse(p).state === 'ON' && JSON.parse(p).brightness === 40);
    const sim = net.sim().device(lamp.ieee);
    assert.equal(sim?.state.state, 'ON');
    assert.equal(sim?.state.brightness, Math.round(0.4 * 254));
    const d = await d3(lamp.serial_number);
    assert.deepEqual([d.state.power.powerState, d.state.brightness.brightness], ['on', 40]);
    await ha.publish(light.command_topic, '{"state":"OFF"}');
    await ha.waitForState(light.state_topic, (p) => JSON.parse(p).state === 'OFF');
    assert.equal(net.sim().device(lamp.ieee)?.state.state, 'OFF');
  });

  test('a colour light takes an RGB colour and a colour temperature in kelvin, and says which it shows', async () => {
    const lamp = await byModel('9290012573A');
    const light = ha.entity(lamp.serial_number, 'light').config;
    assert.deepEqual(light.supported_color_modes, ['rgb', 'color_temp']);
    await ha.publish(light.command_topic, JSON.stringify({ state: 'ON', color: { r: 0, g: 0, b: 255 } }));
    const rgb = JSON.parse(
      await ha.waitForState(
        light.state_topic,
        (p) => JSON.parse(p).color_mode === 'rgb' && JSON.parse(p).state === 'ON',
      ),
    );
    assert.ok(rgb.color.b > rgb.color.r, JSON.stringify(rgb.color));
    await ha.publish(light.command_topic, JSON.stringify({ state: 'ON', color_temp: 6500 }));
    await ha.waitForState(
      light.state_topic,
      (p) => JSON.parse(p).color_mode === 'color_temp' && JSON.parse(p).color_temp === 6500,
    );
    await untilD3(
      lamp.serial_number,
      (d) => d.state['color-temperature']?.colorTemperature === 100,
      'colour temperature 100',
    );
  });

  test('a switch channel turned on from Home Assistant is on, and only that channel', async () => {
    const sw = await byModel('TS0003');
    const ch2 = ha.entity(sw.serial_number, 'switch', 'toggle_2').config;
    // Named by the device's `toggle` tag (spec 2.7) when it labels the channel.
    const label = (sw.tags?.toggle as Record<string, string> | undefined)?.['2'];
    assert.equal(ch2.name, label ?? 'Channel 2');
    await ha.publish(ch2.command_topic, 'ON');
    await ha.waitForState(ch2.state_topic, (p) => p === 'ON');
    const d = await untilD3(sw.serial_number, (x) => x.state.toggle['2'].toggleState === 'on', 'channel 2 on');
    assert.equal(d.state.toggle['1'].toggleState, 'off');
    assert.equal(ha.retained.get(state(sw.serial_number, 'toggle_1')), 'OFF');
  });

  test('a curtain set to 30 % from Home Assistant moves to 30 %, and CLOSE closes it', async () => {
    const curtain = await byModel('E1757');
    const cover = ha.entity(curtain.serial_number, 'cover').config;
    await ha.publish(cover.set_position_topic, '30');
    await ha.waitForState(cover.position_topic, (p) => p === '30');
    assert.equal(net.sim().device(curtain.ieee)?.state.position, 30);
    await ha.publish(cover.command_topic, 'CLOSE');
    await ha.waitForState(cover.position_topic, (p) => p === '0');
    await untilD3(curtain.serial_number, (d) => d.state.percentage?.percentage === 0, 'closed');
  });

  test('a thermostat set to 23.5 °C and to auto from Home Assistant holds them', async () => {
    const trv = await byModel('SPZB0001');
    const climate = ha.entity(trv.serial_number, 'climate').config;
    assert.deepEqual(
      [climate.min_temp, climate.max_temp, climate.temp_step, climate.temperature_unit],
      [5, 30, 0.5, 'C'],
    );
    await ha.publish(climate.temperature_command_topic, '23.5');
    await ha.waitForState(climate.temperature_state_topic, (p) => p === '23.5');
    assert.equal(net.sim().device(trv.ieee)?.state.occupied_heating_setpoint, 23.5);
    await ha.publish(climate.mode_command_topic, 'auto');
    await ha.waitForState(climate.mode_state_topic, (p) => p === 'auto');
    const d = await d3(trv.serial_number);
    assert.equal(d.state.thermostat['thermostat-mode'].thermostatMode, 'AUTO');
  });

  test('an air conditioner switched to cool from Home Assistant cools', async () => {
    const ac = await byModel('Zen-01-W');
    const climate = ha.entity(ac.serial_number, 'climate').config;
    assert.deepEqual(climate.modes, ['auto', 'heat', 'cool']);
    await ha.publish(climate.mode_command_topic, 'cool');
    await ha.waitForState(climate.mode_state_topic, (p) => p === 'cool');
    await untilD3(ac.serial_number, (d) => d.state.mode?.airConditionerMode?.modeValue === 'cool', 'cool');
  });

  test('a fan light: its fan takes a speed preset, its light is a light of its own', async () => {
    const fl = await byModel('99432');
    const fan = ha.entity(fl.serial_number, 'fan').config;
    assert.deepEqual(fan.preset_modes, ['low', 'medium', 'high']);
    await ha.publish(fan.preset_mode_command_topic, 'high');
    await ha.waitForState(fan.preset_mode_state_topic, (p) => p === 'high');
    const light = ha.entity(fl.serial_number, 'light').config;
    assert.equal(light.name, 'Light');
    await ha.publish(light.command_topic, '{"state":"ON","brightness":20}');
    await ha.waitForState(light.state_topic, (p) => JSON.parse(p).state === 'ON' && JSON.parse(p).brightness === 20);
    const d = await d3(fl.serial_number);
    assert.equal(d.state.toggle.light.toggleState, 'on');
    assert.equal(d.state.mode.fanLevel.modeValue, 'high');
  });

  test("a third-party light's command from Home Assistant reaches its service as a directive", async () => {
    const light = ha.entity(third, 'light').config;
    const before = service.received.length;
    await ha.publish(light.command_topic, '{"state":"ON","brightness":55}');
    await ha.waitForState(light.state_topic, (p) => JSON.parse(p).state === 'ON' && JSON.parse(p).brightness === 55);
    const directive = service.received
      .slice(before)
      .find((r) => r.body?.directive?.header?.name === 'UpdateDeviceStates');
    assert.deepEqual(directive?.body.directive.payload.state, {
      power: { powerState: 'on' },
      brightness: { brightness: 55 },
    });
  });

  test('a command D4 refuses is refused with the same message, published on the error topic', async () => {
    const curtain = await byModel('E1757');
    const cover = ha.entity(curtain.serial_number, 'cover').config;
    const d4 = await put(curtain.serial_number, { state: { percentage: { percentage: 150 } } });
    assert.equal(d4.json.error, 400);
    const from = ha.log.length;
    await ha.publish(cover.set_position_topic, '150');
    const err = await ha.waitForMessage(
      (m) => m.topic === `opencube/${curtain.serial_number}/error`,
      'the error',
      from,
    );
    assert.deepEqual(JSON.parse(err.payload), {
      error: 400,
      message: d4.json.message,
      topic: cover.set_position_topic,
      payload: '150',
    });
    assert.equal(err.retain, false);
    assert.equal((await d3(curtain.serial_number)).state.percentage.percentage, 0, 'the curtain did not move');
  });

  const bad: [what: string, topic: (s: Record<string, string>) => string, payload: string, message: RegExp][] = [
    ['a light payload that is not JSON', (s) => command(s.lamp, 'light'), 'on please', /is not JSON/],
    [
      'a light state that is not ON or OFF',
      (s) => command(s.lamp, 'light'),
      '{"state":"MAYBE"}',
      /state: "MAYBE" is not ON or OFF/,
    ],
    [
      'a brightness above 100',
      (s) => command(s.lamp, 'light'),
      '{"state":"ON","brightness":400}',
      /state\.brightness\.brightness: 400 is above max 100/,
    ],
    [
      'a light colour in hue and saturation',
      (s) => command(s.colour, 'light'),
      '{"state":"ON","color":{"h":10,"s":20}}',
      /is not \{r, g, b\}/,
    ],
    ['a JSON array for a light', (s) => command(s.lamp, 'light'), '[1,2]', /is not a JSON object/],
    ['a switch payload in lower case', (s) => command(s.sw, 'toggle_1'), 'on', /is not ON or OFF/],
    ['a position that is not a number', (s) => command(s.curtain, 'cover_position'), 'half', /is not a number/],
    ['a cover command it does not know', (s) => command(s.curtain, 'cover'), 'TILT', /is not OPEN, CLOSE or STOP/],
    ['an HVAC mode the thermostat lacks', (s) => command(s.trv, 'climate_mode'), 'cool', /mode: "cool" is not one of/],
    [
      'a setpoint out of the device range',
      (s) => command(s.trv, 'climate_target'),
      '99',
      /targetSetpoint: 99 is above max 30/,
    ],
    ['a power-on behaviour the catalog lacks', (s) => command(s.lamp, 'startup'), 'sometimes', /startup\.startup/],
    ['a topic of no entity', (s) => command(s.lamp, 'toaster'), 'ON', /toaster: the device takes no command here/],
    ['a button payload other than PRESS', (s) => command(s.lamp, 'identify'), 'press', /is not PRESS/],
    [
      'a serial number the gateway does not have',
      () => command('ffffffffffffffff', 'power'),
      'ON',
      /no device with this serial number/,
    ],
    ['a huge payload', (s) => command(s.lamp, 'light'), 'x'.repeat(40_000), /longer than/],
  ];

  test('bad commands of every kind are refused on the error topic, and the gateway goes on working', async () => {
    const s = {
      lamp: (await byModel('LED1836G9')).serial_number,
      colour: (await byModel('9290012573A')).serial_number,
      sw: (await byModel('TS0003')).serial_number,
      curtain: (await byModel('E1757')).serial_number,
      trv: (await byModel('SPZB0001')).serial_number,
    };
    const targets = new Set(Object.values(s));
    const states = async () =>
      JSON.stringify((await list()).filter((d) => targets.has(d.serial_number)).map((d) => d.state));
    const before = await states();
    for (const [what, topic, payload, message] of bad) {
      const t = topic(s);
      const from = ha.log.length;
      await ha.publish(t, payload);
      const serial = t.split('/')[1] as string;
      const errTopic = serial === 'ffffffffffffffff' ? 'opencube/bridge/error' : `opencube/${serial}/error`;
      const err = await ha.waitForMessage((m) => m.topic === errTopic, `the error of ${what}`, from);
      const body = JSON.parse(err.payload);
      assert.match(body.message, message, what);
      assert.equal(body.topic, t, what);
    }
    assert.equal(await states(), before, 'no device the commands were sent to changed');
    assert.deepEqual(ha.problems(), []);
  });
});

describe('the registry followed', () => {
  test('a rename (D4) renames the Home Assistant device; a toggle tag renames its channel', async () => {
    const sw = await byModel('TS0003');
    assert.equal(
      (await put(sw.serial_number, { name: 'Kitchen wall switch', tags: { toggle: { '1': 'Kettle' } } })).json.error,
      0,
    );
    await ha.waitFor(
      () => ha.deviceConfigs(sw.serial_number).every((c) => c.config.device.name === 'Kitchen wall switch'),
      'the new name',
    );
    await ha.waitFor(
      () => ha.entity(sw.serial_number, 'switch', 'toggle_1').config.name === 'Kettle',
      'the channel label',
    );
    assert.equal(ha.entity(sw.serial_number, 'switch', 'toggle_2').config.name, 'Channel 2');
  });

  test('a device that goes offline makes its entities unavailable and its connectivity off; back online, available', async () => {
    const lamp = await byModel('LED1836G9');
    const availability = `opencube/${lamp.serial_number}/availability`;
    const light = ha.entity(lamp.serial_number, 'light').config;
    assert.ok(light.availability.some((a: { topic: string }) => a.topic === availability));
    assert.equal(light.availability_mode, 'all');
    const online = ha.entity(lamp.serial_number, 'binary_sensor', 'online').config;
    assert.equal(online.state_topic, availability);
    net.sim().setOnline(lamp.ieee, false);
    await ha.waitForState(availability, (p) => p === 'offline');
    net.sim().setOnline(lamp.ieee, true);
    await ha.waitForState(availability, (p) => p === 'online');
    // A third-party device says it itself.
    assert.equal(
      (
        await sendEvent(
          g,
          token,
          'DeviceOnlineChangeReport',
          { online: false },
          { endpoint: { serial_number: third, third_serial_number: 'ha-light-1' } },
        )
      ).json.header.name,
      'Response',
    );
    await ha.waitForState(`opencube/${third}/availability`, (p) => p === 'offline');
  });

  test('a button press is an event and a device trigger, sent once and not retained', async () => {
    const button = await byModel('WXKG01LM');
    const event = ha.entity(button.serial_number, 'event').config;
    const trigger = ha.entity(button.serial_number, 'device_automation', 'press_doublePress').config;
    assert.equal(trigger.type, 'button_double_press');
    const from = ha.log.length;
    net.sim().report(button.ieee, { action: 'double' });
    const e = await ha.waitForMessage((m) => m.topic === event.state_topic, 'the press event', from);
    assert.deepEqual(JSON.parse(e.payload), { event_type: 'doublePress' });
    const a = await ha.waitForMessage((m) => m.topic === trigger.topic, 'the trigger', from);
    assert.equal(a.payload, trigger.payload);
    assert.equal(ha.retained.has(event.state_topic), false);
    assert.equal(ha.retained.has(trigger.topic), false);
  });

  test('a new device (a Zigbee join, a third-party sync) appears in Home Assistant with valid configs', async () => {
    const known = new Set((await list()).map((x) => x.serial_number));
    const discovery = (enable: boolean) =>
      call(g.url, 'PUT', rest('v2', 'devices/discovery'), { token, body: { enable, type: 'Zigbee' } });
    assert.equal((await discovery(true)).json.error, 0);
    const d = await (async () => {
      const end = Date.now() + 15_000;
      for (;;) {
        const found = (await list()).find((x) => !known.has(x.serial_number));
        if (found) return found;
        if (Date.now() > end) throw new Error('no device joined');
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    assert.equal((await discovery(false)).json.error, 0);
    await ha.waitFor(() => ha.deviceConfigs(d.serial_number).length >= 2, 'the joined device');
    const r = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [
        endpoint('ha-plug-2', service.url, {
          display_category: 'plug',
          capabilities: [{ capability: 'power', permission: '1100' }],
          state: { power: { powerState: 'on' } },
        }),
      ],
    });
    const plug = r.json.payload.endpoints[0].serial_number as string;
    const sw = await ha.waitFor(() => ha.entity(plug, 'switch', 'power'), 'the synced plug');
    assert.equal(sw.config.device_class, 'outlet');
    await ha.waitForState(sw.config.state_topic, (p) => p === 'ON');
    for (const c of [...ha.deviceConfigs(d.serial_number), ...ha.deviceConfigs(plug)])
      assert.deepEqual(checkConfig(c.component, c.config), []);
  });

  test('a removed device (D5) has its configs, states and availability cleared at the broker', async () => {
    const contact = await byModel('SNZB-04');
    const topics = ha.deviceConfigs(contact.serial_number).map((c) => c.topic);
    assert.ok(topics.length >= 3);
    const r = await call(g.url, 'DELETE', rest('v2', `devices/${contact.serial_number}`), { token });
    assert.equal(r.json.error, 0);
    await ha.waitFor(() => topics.every((t) => !ha.retained.has(t)), 'the configs cleared');
    await ha.waitFor(
      () => ![...ha.retained.keys()].some((t) => t.startsWith(`opencube/${contact.serial_number}/`)),
      'the states cleared',
    );
  });
});

describe('Home Assistant restarting', () => {
  test("Home Assistant's birth message republishes every config and state", async () => {
    const count = ha.configs().length;
    const from = ha.log.length;
    await ha.publish('homeassistant/status', 'online');
    await ha.waitFor(
      () => ha.log.slice(from).filter((m) => m.topic.endsWith('/config')).length >= count,
      'every config again',
    );
    assert.ok(ha.log.slice(from).some((m) => m.topic === 'opencube/bridge/availability' && m.payload === 'online'));
  });
});
