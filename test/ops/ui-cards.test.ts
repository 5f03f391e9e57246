/**
 * `ui/cards` (COMPAT.md "seen in clients"): add-ons register dashboard cards with the body the
 * public add-ons send (sizes written with U+00D7), read the list as `data` itself, find their
 * card by `id`, change and delete it; bad cards are refused naming the field; cards are kept.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_UI_CARDS } from '../../src/core/ui-cards.ts';
import { call, rest, startGateway } from '../helpers/foundation.ts';
import { weatherCard } from './rig.ts';

const SRC = 'http://192.0.2.10:8321/#/card';

describe('dashboard cards of add-ons', () => {
  it('are registered, listed as data itself, found by id, changed, deleted, and kept across a restart', async (t) => {
    let g = await startGateway();
    t.after(() => g.stop());
    const token = g.token('weather-addon');
    const cards = (version = 'v2') => call(g.url, 'GET', rest(version, 'ui/cards'), { token });

    const added = await call(g.url, 'POST', rest('v1', 'ui/cards'), { token, body: weatherCard(SRC) });
    assert.equal(added.json.error, 0, added.text);
    const card = added.json.data;
    assert.match(card.id, /^[0-9a-f]{16}$/);
    assert.equal(card.label, 'Weather Card');
    assert.deepEqual(card.web_settings, weatherCard(SRC).web_settings);
    assert.deepEqual(card.cast_settings, weatherCard(SRC).cast_settings);
    assert.equal(card.app_name, 'weather-addon');

    // As the add-on reads it: `_.find(res.data, { id })`.
    const list = (await cards()).json;
    assert.equal(list.error, 0);
    assert.ok(Array.isArray(list.data));
    assert.deepEqual(list.data, [card]);
    assert.deepEqual((await cards('v1')).json.data, [card]);

    // The very same card again (an add-on registers at every start): the one there is.
    const again = await call(g.url, 'POST', rest('v2', 'ui/cards'), { token, body: weatherCard(SRC) });
    assert.equal(again.json.data.id, card.id);
    // Sizes written with an ASCII x are the same sizes.
    const ascii = weatherCard('http://192.0.2.10:8321/#/other');
    ascii.web_settings.default = '2x1';
    ascii.web_settings.dimensions = [{ size: '2X1', src: ascii.web_settings.dimensions[0]?.src as string }];
    const other = (await call(g.url, 'POST', rest('v2', 'ui/cards'), { token, body: ascii })).json.data;
    assert.equal(other.web_settings.default, '2×1');
    assert.equal(other.web_settings.dimensions[0].size, '2×1');
    assert.equal((await cards()).json.data.length, 2);

    const renamed = await call(g.url, 'PUT', rest('v2', `ui/cards/${card.id}`), { token, body: { label: 'Weather' } });
    assert.equal(renamed.json.error, 0, renamed.text);
    assert.equal(renamed.json.data.label, 'Weather');
    assert.deepEqual(renamed.json.data.web_settings, card.web_settings, 'what was not given stays');
    const bad = await call(g.url, 'PUT', rest('v2', `ui/cards/${card.id}`), {
      token,
      body: { web_settings: { default: '4×4', dimensions: [{ size: '1×1', src: SRC }] } },
    });
    assert.equal(bad.json.error, 400);
    assert.equal(
      bad.json.message,
      'web_settings.default: 4×4 is not one of the sizes of web_settings.dimensions (1×1)',
    );
    assert.equal(
      (await call(g.url, 'PUT', rest('v2', 'ui/cards/nope'), { token, body: { label: 'x' } })).json.message,
      'id: no card with id nope',
    );

    g = await g.restart();
    const kept = (await cards()).json.data;
    assert.deepEqual(
      kept.map((c: any) => [c.id, c.label]),
      [
        [card.id, 'Weather'],
        [other.id, 'Weather Card'],
      ],
    );
    assert.equal((await call(g.url, 'DELETE', rest('v2', `ui/cards/${other.id}`), { token })).json.error, 0);
    assert.equal(
      (await call(g.url, 'DELETE', rest('v2', `ui/cards/${other.id}`), { token })).json.message,
      `id: no card with id ${other.id}`,
    );
    assert.deepEqual(
      (await cards()).json.data.map((c: any) => c.id),
      [card.id],
    );
    assert.equal((await call(g.url, 'GET', rest('v2', 'ui/cards'))).json.error, 401, 'a token is needed');

    await g.gateway.reset();
    assert.deepEqual(g.gateway.cards.list(), [], 'a factory reset clears the cards');
  });

  it('refuses cards that do not hold together, naming the field, and adds nothing', async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    const token = g.token('bad-addon');
    const good = weatherCard(SRC);
    const cases: [unknown, RegExp][] = [
      [{}, /^web_settings: required$/],
      [{ label: 'x' }, /^web_settings: required$/],
      [{ ...good, web_settings: 'big' }, /^web_settings: expected an object/],
      [{ ...good, web_settings: { ...good.web_settings, dimensions: [] } }, /^web_settings\.dimensions: .*at least 1/],
      [
        { ...good, web_settings: { ...good.web_settings, default: '2*1' } },
        /^web_settings\.default: "2\*1" is not columns × rows/,
      ],
      [{ ...good, web_settings: { ...good.web_settings, default: '0×1' } }, /^web_settings\.default: /],
      [
        { ...good, web_settings: { ...good.web_settings, default: '1×1' } },
        /^web_settings\.default: 1×1 is not one of the sizes of web_settings\.dimensions \(2×1\)$/,
      ],
      [
        { ...good, web_settings: { ...good.web_settings, dimensions: [{ size: '2×1', src: 'javascript:alert(1)' }] } },
        /^web_settings\.dimensions\.0\.src: .* is not an http or https URL$/,
      ],
      [
        { ...good, web_settings: { ...good.web_settings, dimensions: [{ size: '2×1' }] } },
        /^web_settings\.dimensions\.0\.src: required$/,
      ],
      [
        {
          ...good,
          web_settings: {
            ...good.web_settings,
            dimensions: [
              { size: '2×1', src: SRC },
              { size: '2x1', src: SRC },
            ],
          },
        },
        /^web_settings\.dimensions: size 2×1 is given twice$/,
      ],
      [
        { ...good, web_settings: { ...good.web_settings, drawer_component: { src: 42 } } },
        /^web_settings\.drawer_component\.src: /,
      ],
      [
        { ...good, cast_settings: { default: '1×1', dimensions: [{ size: '2×2', src: SRC }] } },
        /^cast_settings\.default: 1×1 is not one of/,
      ],
      [{ ...good, label: 'x'.repeat(257) }, /^label: /],
      [{ ...good, label: 7 }, /^label: /],
      ['[1,2]', /^body: /],
      ['{"label":', /./],
    ];
    for (const [body, message] of cases) {
      const r = await call(g.url, 'POST', rest('v2', 'ui/cards'), { token, body });
      assert.equal(r.status, 200);
      assert.equal(r.json.error, 400, `${JSON.stringify(body).slice(0, 80)}: ${r.text}`);
      assert.match(r.json.message, message, JSON.stringify(body).slice(0, 120));
    }
    assert.deepEqual(g.gateway.cards.list(), []);
    const put = await call(g.url, 'PUT', rest('v2', 'ui/cards/abc'), { token, body: {} });
    assert.equal(put.json.error, 400);
    assert.match(put.json.message, /at least one of label, web_settings, cast_settings/);
  });

  it(`keeps at most ${MAX_UI_CARDS} cards`, async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    const token = g.token('many');
    for (let i = 0; i < MAX_UI_CARDS; i++)
      assert.equal(
        (await call(g.url, 'POST', rest('v2', 'ui/cards'), { token, body: weatherCard(`${SRC}${i}`) })).json.error,
        0,
      );
    const over = await call(g.url, 'POST', rest('v2', 'ui/cards'), { token, body: weatherCard(`${SRC}x`) });
    assert.deepEqual(over.json, {
      error: 400,
      data: {},
      message: `at most ${MAX_UI_CARDS} cards can be registered; delete one first`,
    });
  });
});
