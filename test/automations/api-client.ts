/**
 * The API of scenes and automations as clients call it: the Open API with a token (the envelope)
 * and the console's API with a session (HTTP statuses), on a home of home.ts.
 */
import assert from 'node:assert/strict';
import { type ConsoleClient, consoleClient } from '../console/client.ts';
import { call, rest } from '../helpers/foundation.ts';
import type { Home } from './home.ts';

export const PASSWORD = 'correct horse battery';

/** The Open API's path of the automations (under /open-api/{v1,v2}/rest). */
export const OPEN = 'opencube/automations';

export interface Clients {
  /** An app's token (linked as `app`). */
  token: string;
  /** `METHOD opencube/automations<path>` on the Open API (v2): the envelope's JSON. */
  open(method: string, path?: string, body?: unknown, version?: string): Promise<any>;
  /** The console's client, logged in. */
  console: ConsoleClient;
}

/** A token for `app` and a logged-in console on the home's gateway. */
export async function clients(home: Home, app = 'Kitchen tablet'): Promise<Clients> {
  const token = await home.g.linkToken(app);
  await home.g.gateway.setConsolePassword(PASSWORD);
  const c = consoleClient(home.g.url);
  assert.equal((await c.login(PASSWORD)).status, 200);
  return {
    token,
    async open(method, path = '', body, version = 'v2') {
      const r = await call(home.g.url, method, rest(version, `${OPEN}${path}`), {
        token,
        ...(body === undefined ? {} : { body }),
      });
      assert.equal(r.status, 200, r.text);
      return r.json;
    },
    console: c,
  };
}

/** Saves a definition through the Open API; its id. */
export async function create(c: Clients, def: Record<string, unknown>): Promise<string> {
  const r = await c.open('POST', '', def);
  assert.equal(r.error, 0, JSON.stringify(r));
  return r.data.definition.id as string;
}
