/**
 * `opencube matter` with the bridge off: its advice holds whether the setting or the console's
 * stored switch keeps the bridge off (the stored choice wins over --matter-enabled, so the flag
 * alone would be wrong advice). The bridge never starts here: no Matter on any interface.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { matterCommand } from '../../src/integrations/matter/cli.ts';
import { consoleClient } from '../console/client.ts';
import { startGateway, tempDir } from '../helpers/foundation.ts';

test('with the bridge off by its setting, `opencube matter` says how to turn it on in the console', async (t) => {
  const g = await startGateway();
  t.after(() => g.stop());
  const text = await matterCommand(g.gateway.paths.socket);
  assert.match(text, /^the Matter bridge is off\. Turn it on in the console: Gateway page, Matter card/);
  assert.match(text, /until then, that setting decides at each start/);
});

test("with the bridge off by the console's switch, `opencube matter` says the stored choice wins over --matter-enabled", async (t) => {
  const dataDir = tempDir();
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const g = await startGateway({ dataDir });
  await g.gateway.setConsolePassword('matter cli password');
  const c = consoleClient(g.url);
  await c.login('matter cli password');
  const off = await c.call('PUT', '/matter', { enabled: false });
  assert.deepEqual(off.body, { enabled: false, chosen_by: 'console' });
  await g.stop();
  // The same folder started with the flag on: the console's choice keeps the bridge off.
  const again = await startGateway({ dataDir, overrides: { matter: { enabled: true } } });
  t.after(() => again.stop());
  assert.equal(again.gateway.matter(), undefined, 'the bridge stayed off');
  const text = await matterCommand(again.gateway.paths.socket);
  assert.match(text, /Turn it on in the console/);
  assert.match(text, /Once the console's switch has been used, its choice is kept and wins over --matter-enabled/);
});
