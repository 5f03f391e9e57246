/**
 * The console's login, setup and password change refuse in the one failure shape of every other
 * part (`Failed` of src/catalog/errors.ts: `ok: false`, a code of the error catalog, words), with
 * the console's HTTP status where the code's own does not fit and when a limited caller may try
 * again. What the console's page gets for each (status and words) is tested in access.test.ts and
 * test/security/console-login.test.ts, unchanged.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../src/catalog/errors.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { ConsoleAccess } from '../../src/http/console/access.ts';
import { refusal } from '../../src/http/console/route.ts';
import { openDb } from '../../src/store/db.ts';
import { ManualClock } from '../helpers/clock.ts';

const client = { address: '127.0.0.1', userAgent: 'test' };
const PASSWORD = 'correct horse battery';

test('every refusal is a failure of the catalog, and the console writes it with the status and words it always had', async (t) => {
  const db = openDb(':memory:');
  t.after(() => db.close());
  const access = new ConsoleAccess({ db, clock: new ManualClock(), bus: new EventBus(), maxFailures: 3 });

  const noPassword = await access.login(PASSWORD, client);
  assert.deepEqual(noPassword, {
    ok: false,
    code: ErrorCode.AUTH_FAILED,
    message: 'no password is set yet: use the setup code',
    status: 409,
  });
  const code = access.pendingSetupCode() as string;
  const wrongCode = await access.setup('AAAAA-AAAAA', PASSWORD, client);
  assert.deepEqual(wrongCode, {
    ok: false,
    code: ErrorCode.AUTH_FAILED,
    message: 'wrong setup code (it is in the gateway log)',
  });
  const short = await access.setup(code, 'short', client);
  assert.deepEqual(short, {
    ok: false,
    code: ErrorCode.INVALID_PARAMETERS,
    message: 'password: at least 8 characters',
  });
  assert.equal((await access.setup(code, PASSWORD, client)).ok, true);
  const again = await access.setup(code, PASSWORD, client);
  assert.deepEqual(again, {
    ok: false,
    code: ErrorCode.AUTH_FAILED,
    message: 'a password is already set: log in with it',
    status: 409,
  });
  const wrong = await access.login('not the password', client);
  assert.deepEqual(wrong, { ok: false, code: ErrorCode.AUTH_FAILED, message: 'wrong password' });
  const changed = await access.changePassword('not it', 'another password', client);
  assert.deepEqual(changed, { ok: false, code: ErrorCode.AUTH_FAILED, message: 'current password: wrong password' });
  // The third failure of this address spends its budget: the next attempt is refused unchecked.
  await access.login('still not it', client);
  const limited = await access.login(PASSWORD, client);
  assert.ok(!limited.ok);
  assert.deepEqual(
    { ...limited, message: undefined, retryAfterSeconds: undefined },
    { ok: false, code: ErrorCode.AUTH_FAILED, status: 429, message: undefined, retryAfterSeconds: undefined },
  );
  assert.ok(limited.retryAfterSeconds !== undefined && limited.retryAfterSeconds > 0);
  assert.match(limited.message, /try again in \d+ minutes?/);

  // As the console writes them: the statuses and words of before.
  const wire = [noPassword, wrongCode, short, again, wrong, limited].map((r) => (r.ok ? null : refusal(r)));
  assert.deepEqual(
    wire.map((a) => a?.status),
    [409, 401, 400, 409, 401, 429],
  );
  assert.deepEqual(wire[4]?.body, { error: 'wrong password' });
});
