/**
 * Capability lists kept once (src/core/devices/interned.ts): devices of one model share one list,
 * which is frozen, so that a change made in place to one device's list cannot reach the others.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeviceAnnouncement } from '../../src/core/devices/contract.ts';
import { Interned } from '../../src/core/devices/interned.ts';
import { DeviceRegistry } from '../../src/core/devices/registry.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { openDb } from '../../src/store/db.ts';

function plug(ref: string, capabilities = [{ capability: 'power', permission: '1100' }]): DeviceAnnouncement {
  return {
    driver_ref: ref,
    name: ref,
    manufacturer: 'Test',
    model: 'P1',
    firmware_version: '1.0.0',
    display_category: 'plug',
    capabilities,
    state: { power: { powerState: 'off' } },
  };
}

describe('capability lists kept once', () => {
  it('are one frozen list for devices that announce equal lists, and a list of its own for a device that differs', () => {
    const db = openDb(':memory:');
    try {
      const registry = new DeviceRegistry(db, new EventBus(100));
      const [a, b] = ['a', 'b'].map((ref) => registry.deviceFound('test', plug(ref)));
      const c = registry.deviceFound(
        'test',
        plug('c', [
          { capability: 'power', permission: '1100' },
          { capability: 'rssi', permission: '0100' },
        ]),
      );
      const caps = (r: typeof a) => registry.get(r?.serial_number as string)?.capabilities;
      assert.equal(caps(a), caps(b));
      assert.notEqual(caps(a), caps(c));
      assert.ok(Object.isFrozen(caps(a)) && Object.isFrozen(caps(a)?.[0]));
      assert.throws(() => caps(a)?.push({ capability: 'rssi', permission: '0100' }), TypeError);
      // A state report keeps the same list.
      registry.stateReported(a?.serial_number as string, { power: { powerState: 'on' } });
      assert.equal(caps(a), caps(b));
      assert.deepEqual(caps(a), [{ capability: 'power', permission: '1100' }]);
    } finally {
      db.close();
    }
  });

  it('keeps a copy, so that the caller changing what it passed changes nothing kept', () => {
    const table = new Interned<{ n: number[] }>();
    const given = { n: [1, 2] };
    const kept = table.of(given);
    given.n.push(3);
    assert.deepEqual(kept, { n: [1, 2] });
    assert.equal(table.of({ n: [1, 2] }), kept);
    assert.equal(table.of(kept), kept);
    assert.equal(table.size, 1);
  });
});
