/**
 * The activity log's lines about apps waiting for approval (issue 23: a press printed
 * `waiting for approval: ` with no name): each app is named once, when it starts waiting; an app
 * without app_name is named as such; a press or a decision that empties the list says nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ActivityLog } from '../../src/core/activity.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { TokenService } from '../../src/core/tokens.ts';
import { openDb } from '../../src/store/db.ts';
import { ManualClock } from '../helpers/clock.ts';
import { recordingLog } from '../helpers/log.ts';

test('each app waiting for approval is named once, as it starts waiting; never a line without a name', (t) => {
  const bus = new EventBus(10_000);
  const db = openDb(':memory:');
  t.after(() => db.close());
  const tokens = new TokenService(db, 300_000, new ManualClock(), bus);
  const recorded = recordingLog('info');
  const activity = new ActivityLog(bus, recorded.log, () => []);
  activity.start();
  t.after(() => activity.stop());
  const waitingLines = () =>
    recorded.lines.map((l) => JSON.parse(l).msg as string).filter((m) => m.startsWith('waiting for approval'));

  tokens.poll('Node-RED');
  tokens.poll('Node-RED');
  tokens.poll(undefined);
  assert.deepEqual(waitingLines(), [
    'waiting for approval: Node-RED',
    'waiting for approval: (a client without app_name)',
  ]);
  tokens.press(); // approves both: the list is empty now
  tokens.poll('Homebridge'); // first polls after the press: it waits
  tokens.deny('Homebridge');
  tokens.poll('Homebridge'); // denied: it does not show as waiting again
  assert.deepEqual(waitingLines(), [
    'waiting for approval: Node-RED',
    'waiting for approval: (a client without app_name)',
    'waiting for approval: Homebridge',
  ]);
  assert.ok(
    recorded.lines.every((l) => !/waiting for approval: *"/.test(l)),
    'no line without a name',
  );
});
