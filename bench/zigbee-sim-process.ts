/**
 * The simulated Zigbee2MQTT of the Zigbee benchmark (bench/zigbee.bench.ts) in its own process,
 * as a home runs Zigbee2MQTT: connected to the broker the bench names, with `devices` devices of
 * the captured models and no scheduled reports. Tells the friendly names of every device over
 * IPC once it has published its devices; stops when the bench disconnects.
 */
import { loadFixtures, pickModels, Z2mSimulator } from '../src/drivers/zigbee-sim/index.ts';

interface Job {
  url: string;
  baseTopic: string;
  devices: number;
}

process.once('message', async (job: Job) => {
  try {
    const fixtures = loadFixtures();
    const sim = new Z2mSimulator({
      url: job.url,
      baseTopic: job.baseTopic,
      devices: pickModels(job.devices, fixtures),
      reportIntervalMs: 0,
    });
    await sim.start();
    process.once('disconnect', () => void sim.stop());
    process.send?.({ ok: true, devices: sim.list().map((d) => ({ friendly: d.friendly, model: d.fixture.model })) });
  } catch (err) {
    process.send?.({ ok: false, error: String(err) }, () => process.disconnect());
  }
});
