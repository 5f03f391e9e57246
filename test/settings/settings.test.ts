import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { envName, flagName, loadSettings, SettingsError, settingDefs } from '../../src/settings/index.ts';

describe('settings', () => {
  test('defaults run the gateway on port 8081 with the simulated Zigbee network and data in ./data', () => {
    const s = loadSettings();
    assert.equal(s.port, 8081);
    assert.equal(s.host, '0.0.0.0');
    assert.equal(s.data_dir, './data');
    assert.equal(s.zigbee.mode, 'sim');
    assert.deepEqual(s.zigbee.base_topics, ['zigbee2mqtt']);
    assert.equal(s.domain, 'cube.local');
    assert.equal(s.link_window_seconds, 300);
  });

  test('every setting has an OPENCUBE_ environment variable and a flag', () => {
    for (const def of settingDefs) {
      assert.match(envName(def), /^OPENCUBE_[A-Z0-9_]+$/);
      assert.match(flagName(def), /^[a-z0-9-]+$/);
    }
    assert.equal(envName(settingDefs.find((d) => d.key === 'zigbee.mqtt_url')!), 'OPENCUBE_ZIGBEE_MQTT_URL');
  });

  test('the environment overrides defaults and flags override the environment', () => {
    const env = {
      OPENCUBE_PORT: '9000',
      OPENCUBE_NAME: 'attic',
      OPENCUBE_MDNS: 'false',
      OPENCUBE_ZIGBEE_BASE_TOPICS: 'a, b',
    };
    const fromEnv = loadSettings({ env });
    assert.equal(fromEnv.port, 9000);
    assert.equal(fromEnv.name, 'attic');
    assert.equal(fromEnv.mdns, false);
    assert.deepEqual(fromEnv.zigbee.base_topics, ['a', 'b']);
    const fromFlags = loadSettings({ env, flags: { port: '9100', 'sim-devices': '200', mdns: true } });
    assert.equal(fromFlags.port, 9100);
    assert.equal(fromFlags.zigbee.sim_devices, 200);
    assert.equal(fromFlags.mdns, true);
  });

  const bad: [string, Record<string, string>, RegExp][] = [
    [
      'a port that is not a number',
      { OPENCUBE_PORT: 'eighty' },
      /port \(from environment OPENCUBE_PORT\): "eighty" is not an integer/,
    ],
    ['a port above 65535', { OPENCUBE_PORT: '70000' }, /port .*70000 is above max 65535/],
    [
      'an unknown Zigbee mode',
      { OPENCUBE_ZIGBEE_MODE: 'zha' },
      /zigbee\.mode .*"zha" is not one of sim, z2m, herdsman, off/,
    ],
    ['a boolean that is not one', { OPENCUBE_MDNS: 'maybe' }, /mdns .*"maybe" is not a boolean/],
    [
      'a link window longer than the spec allows',
      { OPENCUBE_LINK_WINDOW_SECONDS: '301' },
      /link_window_seconds .*above max 300/,
    ],
    [
      'a time zone that is not an IANA name',
      { OPENCUBE_TIME_ZONE: 'Europe/Atlantis' },
      /time_zone \(from environment OPENCUBE_TIME_ZONE\): "Europe\/Atlantis" is not an IANA time zone name/,
    ],
    [
      'a location that is not latitude,longitude',
      { OPENCUBE_LOCATION: 'Berlin' },
      /location .*"Berlin" is not latitude,longitude/,
    ],
    ['a latitude past the pole', { OPENCUBE_LOCATION: '91,13' }, /location .*has a latitude outside -90\.\.90/],
    ['a longitude past 180', { OPENCUBE_LOCATION: '52.5,-181' }, /location .*has a longitude outside -180\.\.180/],
    [
      'an empty list of base topics',
      { OPENCUBE_ZIGBEE_BASE_TOPICS: ' , ' },
      /zigbee\.base_topics .*needs at least one value/,
    ],
  ];
  for (const [what, env, message] of bad) {
    test(`refuses ${what} with a message naming the setting`, () => {
      assert.throws(
        () => loadSettings({ env }),
        (err: unknown) => err instanceof SettingsError && message.test(err.message),
      );
    });
  }

  test('takes an IANA time zone, a location and the grace of missed triggers', () => {
    const s = loadSettings({
      env: {
        OPENCUBE_TIME_ZONE: 'America/New_York',
        OPENCUBE_LOCATION: ' -33.87, 151.21 ',
        OPENCUBE_AUTOMATIONS_GRACE_MINUTES: '30',
      },
    });
    assert.equal(s.time_zone, 'America/New_York');
    assert.equal(s.location, ' -33.87, 151.21 ');
    assert.equal(s.automations.grace_minutes, 30);
    const d = loadSettings();
    assert.deepEqual([d.time_zone, d.location, d.automations.grace_minutes], ['', '', 15]);
  });

  test('a bad flag names the flag it came from', () => {
    assert.throws(() => loadSettings({ flags: { port: '-1' } }), /port \(from flag --port\): -1 is below min 0/);
  });
});
