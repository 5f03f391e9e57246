/**
 * Logs (issue 13): JSON lines, or pino-pretty's lines for people at a terminal; the level changed
 * while running through the control socket; and tokens, passwords and URLs with credentials
 * never written, whatever a caller passes: a whole scenario runs at `trace` through the real CLI
 * and everything the gateway wrote is searched for every secret it was given.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { createLogger } from '../../src/lib/logger.ts';
import { REDACTED, redactText, redactValue } from '../../src/lib/redact.ts';
import { cameraBody } from '../camera/bodies.ts';
import { consoleClient } from '../console/client.ts';
import { freePort, runCli, spawnCli, startArgs } from '../helpers/cli.ts';
import { call, rest, tempDir, waitForValue } from '../helpers/foundation.ts';
import { endpoint, sendEvent, startService } from '../helpers/thirdparty.ts';
import { populate } from './rig.ts';

describe('what is taken out of a log line', () => {
  it('the password of a URL and the token of a query string, in any text', () => {
    const cases: [string, string][] = [
      ['rtsp://admin:s3cret@10.0.0.5:554/live', `rtsp://admin:${REDACTED}@10.0.0.5:554/live`],
      ['mqtt://z2m:p%40ss@broker:1883', `mqtt://z2m:${REDACTED}@broker:1883`],
      ['http://u:p@h/d and https://a:b@c/', `http://u:${REDACTED}@h/d and https://a:${REDACTED}@c/`],
      ['http://:only-password@host/x', `http://:${REDACTED}@host/x`],
      ['GET /open-api/v2/sse/bridge?access_token=abc.DEF-123', `GET /open-api/v2/sse/bridge?access_token=${REDACTED}`],
      ['/x?a=1&token=zzz&b=2', `/x?a=1&token=${REDACTED}&b=2`],
      ['connect ECONNREFUSED 127.0.0.1:1883', 'connect ECONNREFUSED 127.0.0.1:1883'],
      ['rtsp://admin@10.0.0.5/live (no password)', 'rtsp://admin@10.0.0.5/live (no password)'],
      ['mail someone@example.com', 'mail someone@example.com'],
      ['a=b, plain text', 'a=b, plain text'],
    ];
    for (const [text, want] of cases) assert.equal(redactText(text), want, text);
  });

  it('the values of secret keys at any depth, errors as plain objects, and the caller keeps its own values', () => {
    const err = Object.assign(new Error('cannot reach http://svc:pw@127.0.0.1:9/d'), { code: 'ECONNREFUSED' });
    const input = {
      token: 'tok',
      Authorization: 'Bearer tok',
      nested: { password: 'p', list: [{ access_token: 'a' }, 'rtsp://x:y@h/'], fine: 3 },
      err,
      empty: { password: '' },
    };
    const out = redactValue(input) as any;
    assert.equal(out.token, REDACTED);
    assert.equal(out.Authorization, REDACTED);
    assert.deepEqual(out.nested, {
      password: REDACTED,
      list: [{ access_token: REDACTED }, `rtsp://x:${REDACTED}@h/`],
      fine: 3,
    });
    assert.equal(out.err.message, `cannot reach http://svc:${REDACTED}@127.0.0.1:9/d`);
    assert.equal(out.err.code, 'ECONNREFUSED');
    assert.equal(out.err.stack.includes(':pw@'), false);
    assert.deepEqual(out.empty, { password: '' }, 'nothing to hide');
    assert.equal(input.token, 'tok');
    assert.equal(err.message, 'cannot reach http://svc:pw@127.0.0.1:9/d', 'the error itself is not changed');
  });

  it('the logger writes JSON lines with them taken out, and its level can change while it runs', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const log = createLogger({ level: 'info', format: 'json', destination });
    log.info({ url: 'rtsp://a:b@h/x', token: 'tok-1' }, 'camera at http://c:d@h and %s', 'mqtt://e:f@h');
    log.error({ err: new Error('refused by http://g:h@host/') }, 'failed');
    log.debug({ n: 1 }, 'hidden at info');
    log.level = 'debug';
    log.debug({ n: 2 }, 'shown at debug');
    const parsed = lines.map((l) => JSON.parse(l));
    assert.deepEqual(
      parsed.map((p) => p.msg),
      [`camera at http://c:${REDACTED}@h and mqtt://e:${REDACTED}@h`, 'failed', 'shown at debug'],
    );
    assert.equal(parsed[0].url, `rtsp://a:${REDACTED}@h/x`);
    assert.equal(parsed[0].token, REDACTED);
    assert.equal(parsed[1].err.message, `refused by http://g:${REDACTED}@host/`);
    for (const secret of [':b@', 'tok-1', ':d@', ':f@', ':h@'])
      assert.equal(lines.join('\n').includes(secret), false, secret);
    const pretty = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('/pino-pretty/'));
    assert.deepEqual(pretty, [], 'the JSON logger does not load pino-pretty (about 10 MB)');
  });
});

/** An MQTT broker on 127.0.0.1 that takes one account only. */
async function securedBroker(username: string, password: string) {
  const aedes = await Aedes.createBroker({
    authenticate: (_client, user, pass, done) => done(null, user === username && pass?.toString() === password),
  });
  const server = createServer((s) => aedes.handle(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    close: async () => {
      server.close();
      await new Promise<void>((r) => aedes.close(() => r()));
    },
  };
}

describe('the gateway at trace, through a whole scenario', () => {
  it('never writes a token, a password or a URL with credentials', async (t) => {
    const secrets = {
      mqtt: 'mqtt-secret-7',
      service: 'svc-pass-3',
      camera: 'cam-secret-9',
      rtsp: 'rtsp-pass-5',
      tts: 'tts-pass-1',
      wrongToken: 'wrong-token-value-4711',
      consolePassword: 'console-pass-2718',
      newConsolePassword: 'console-pass-3141',
      wrongConsolePassword: 'console-pass-1618',
    };
    const broker = await securedBroker('z2m', secrets.mqtt);
    t.after(() => broker.close());
    const mqttUrl = `mqtt://z2m:${secrets.mqtt}@127.0.0.1:${broker.port}`;
    const standIn = await mqtt.connectAsync(mqttUrl, { clientId: 'z2m-standin' });
    await standIn.publishAsync('zigbee2mqtt/bridge/state', '{"state":"online"}', { retain: true });
    await standIn.publishAsync('zigbee2mqtt/bridge/devices', '[]', { retain: true });
    await standIn.endAsync();

    const dir = tempDir('opencube-logs-');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = spawnCli(
      startArgs(
        port,
        dir,
        '--audio-sink',
        'null',
        '--zigbee-mode',
        'z2m',
        '--zigbee-mqtt-url',
        mqttUrl,
        '--metrics',
        'token',
        '--log-level',
        'trace',
      ),
    );
    t.after(() => {
      proc.killAll();
      rmSync(dir, { recursive: true, force: true });
    });
    await proc.waitForOutput(/opencube listening on /);
    await waitForValue(async () => (await call(base, 'GET', '/ready')).status === 200, 15_000, 'ready');

    // The console: the setup code from the log sets the password, then logins, a wrong one, a
    // password change, the console API used with the session cookie, a logout.
    const setupCode = /setup code ([A-Z2-9]{5}-[A-Z2-9]{5})/.exec(proc.stderr())?.[1] as string;
    assert.ok(setupCode, 'the setup code is announced at start');
    const admin = consoleClient(base);
    const setup = await admin.call('POST', '/auth/setup', { code: setupCode, password: secrets.consolePassword });
    assert.equal(setup.status, 200, JSON.stringify(setup.body));
    const cookies = [admin.cookie as string];
    assert.equal((await admin.call('POST', '/auth/setup', { code: setupCode, password: 'x'.repeat(12) })).status, 409);
    const other = consoleClient(base);
    assert.equal((await other.login(secrets.wrongConsolePassword)).status, 401);
    assert.equal((await other.login(secrets.consolePassword)).status, 200);
    cookies.push(other.cookie as string);
    assert.equal((await other.call('GET', '/devices')).status, 200);
    const changed = await other.call('PUT', '/auth/password', {
      current: secrets.consolePassword,
      password: secrets.newConsolePassword,
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    cookies.push(other.cookie as string);
    assert.equal((await other.call('GET', '/sessions')).status, 200);
    assert.equal((await other.call('POST', '/auth/logout')).status, 200);
    for (const c of cookies) assert.match(c, /^[\w-]{43}$/);

    // The link button, the way clients get a token.
    const poll = () => call(base, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=scenario`);
    assert.equal((await poll()).json.error, 401);
    assert.equal((await runCli(['link', '--data-dir', dir])).code, 0);
    const token = (await poll()).json.data.token as string;
    assert.ok(token);

    // The token in use: REST, the event stream (token in the URL), metrics, and a wrong one.
    assert.equal((await call(base, 'GET', rest('v2', 'devices'), { token })).json.error, 0);
    assert.equal((await call(base, 'GET', rest('v2', 'devices'), { token: secrets.wrongToken })).json.error, 401);
    assert.equal((await call(base, 'GET', '/metrics', { token })).status, 200);
    const stream = await fetch(`${base}/open-api/v2/sse/bridge?access_token=${token}`);
    assert.equal(stream.status, 200);
    await stream.body?.cancel();
    const refused = await fetch(`${base}/open-api/v1/sse/bridge?access_token=${secrets.wrongToken}`);
    assert.equal(refused.status, 401);

    // Third-party devices behind a service address with a password, and a camera with an account.
    const g = { url: base, linkToken: async () => token } as any;
    const rig = await populate(g, {
      serviceAddress: (url) => url.replace('http://', `http://svc:${secrets.service}@`),
    });
    t.after(() => rig.close());
    const control = await call(base, 'PUT', rest('v2', `devices/${rig.serials[1]}`), {
      token,
      body: { state: { power: { powerState: 'on' } } },
    });
    assert.equal(control.json.error, 0, control.text);
    // A service that is gone: the directive fails and the failure is logged.
    const gone = await startService();
    const goneAddress = gone.url.replace('http://', `http://svc:${secrets.service}@`);
    await gone.close();
    const synced = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('gone-1', goneAddress)] });
    const goneSerial = synced.json.payload.endpoints[0].serial_number;
    const failed = await call(base, 'PUT', rest('v2', `devices/${goneSerial}`), {
      token,
      body: { state: { power: { powerState: 'on' } } },
    });
    assert.equal(failed.json.error, 110019, failed.text);
    await sendEvent(g, token, 'RegisterTTSEngine', {
      service_address: `http://tts:${secrets.tts}@127.0.0.1:9/tts`,
      name: 'Secret TTS',
    });
    // A camera that cannot be reached, its password in the URL: refused, and the refusal logged.
    const rtsp = await call(base, 'POST', rest('v2', 'devices'), {
      token,
      body: cameraBody(`rtsp://cam:${secrets.rtsp}@127.0.0.1:${await freePort()}/stream`, { name: 'Garage' }),
    });
    assert.notEqual(rtsp.json.error, 0);
    assert.equal(
      (await call(base, 'GET', rest('v2', `thirdparty/debug-log/${rig.serials[1]}`), { token })).json.error,
      0,
    );

    // The level goes down and back while running; a backup through the socket.
    assert.equal((await runCli(['log-level', 'debug', '--data-dir', dir])).code, 0);
    assert.equal((await runCli(['log-level', 'trace', '--data-dir', dir])).code, 0);
    assert.equal((await runCli(['backup', join(dir, 'scenario.backup'), '--data-dir', dir])).code, 0);

    proc.child.kill('SIGTERM');
    const exit = await proc.exited;
    assert.equal(exit.code, 0, proc.stderr().slice(-2000));

    const written = `${proc.stdout()}\n${proc.stderr()}`;
    const lines = proc
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    // The scenario was logged, at every level down to trace, as JSON lines.
    for (const l of lines) JSON.parse(l);
    assert.ok(
      lines.some((l) => JSON.parse(l).level === 10),
      'trace lines were written',
    );
    for (const msg of [
      'request',
      'third-party directive',
      'third-party directive failed',
      'third-party directive failed: ',
      'third-party event',
      'log level changed',
      'mqtt in',
    ])
      assert.ok(
        lines.some((l) => (msg.endsWith(' ') ? JSON.parse(l).msg.startsWith(msg) : JSON.parse(l).msg === msg)),
        `a "${msg}" line was written`,
      );
    const cookieSecrets = Object.fromEntries(cookies.map((c, i) => [`session cookie ${i}`, c]));
    for (const [what, secret] of Object.entries({ ...secrets, ...cookieSecrets, token }))
      assert.equal(
        written.includes(secret),
        false,
        `the ${what} secret was written: ${written.slice(Math.max(0, written.indexOf(secret) - 300), written.indexOf(secret) + 100)}`,
      );
    assert.equal(written.includes(encodeURIComponent(token)), false);
    // The setup code is announced once at start (how the owner gets it), and never again: not
    // when it was used, nor when it was tried after.
    const withCode = written.split('\n').filter((l) => l.includes(setupCode));
    assert.equal(withCode.length, 1, withCode.join('\n'));
    assert.match(
      JSON.parse(withCode[0] as string).msg,
      new RegExp(
        `^console: no password set yet; setup code ${setupCode} \\(or run "opencube passwd --data-dir \\S+"\\)$`,
      ),
    );
    assert.ok(written.includes(REDACTED), 'something was taken out');
  });
});

describe('the log format and level from the command line', () => {
  it('--log-format pretty writes lines for people; log-level shows and changes the level of the running gateway', async (t) => {
    const dir = tempDir('opencube-pretty-');
    const port = await freePort();
    const proc = spawnCli(
      startArgs(port, dir, '--zigbee-mode', 'off', '--audio-sink', 'null', '--log-format', 'pretty'),
    );
    t.after(() => {
      proc.killAll();
      rmSync(dir, { recursive: true, force: true });
    });
    await proc.waitForOutput(/opencube listening on /);
    await waitForValue(() => /gateway listening/.test(proc.stderr()), 10_000, 'the listening line');
    const line = proc
      .stderr()
      .split('\n')
      .find((l) => l.includes('gateway listening')) as string;
    // Local time, level, message and the entry's fields on one line (no pid, no host name).
    assert.match(
      line,
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: gateway listening \{"url":"http:\/\/127\.0\.0\.1:\d+","data_dir":".+"\}$/,
    );
    assert.equal(proc.stderr().includes('{"level"'), false, 'no JSON lines');

    const show = await runCli(['log-level', '--data-dir', dir]);
    assert.equal(show.stdout, 'log level: info\n');
    const change = await runCli(['log-level', 'debug', '--data-dir', dir]);
    assert.equal(change.stdout, 'log level: debug (was info); it goes back to --log-level at the next start\n');
    await call(`http://127.0.0.1:${port}`, 'GET', '/health');
    await waitForValue(() => /DEBUG: request/.test(proc.stderr()), 10_000, 'a debug line');
    const bad = await runCli(['log-level', 'loud', '--data-dir', dir]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /unknown log level "loud" \(fatal, error, warn, info, debug, trace, silent\)/);
    proc.child.kill('SIGTERM');
    assert.equal((await proc.exited).code, 0);
    const stopped = await runCli(['log-level', '--data-dir', dir]);
    assert.equal(stopped.code, 1);
    assert.match(stopped.stderr, /no gateway is running on this data folder/);
  });
});
