/**
 * `ui/cards` (COMPAT.md "seen in clients"): dashboard cards that add-ons register, shown by the
 * console as frames of the add-on's pages (src/core/ui-cards.ts). As the add-ons read it, `GET`
 * answers `data` as the array of cards itself, and `POST` answers the card (`data.id`). Shapes and
 * decisions in docs/api.md.
 */
import { arr, obj, opt, str } from '../../../catalog/schema.ts';
import type { CardResult } from '../../../core/ui-cards.ts';
import { done, failed, type RouteResult, type RouteSpec, route } from '../route.ts';
import type { OpenApiServices } from '../services.ts';
import { body } from '../wire.ts';

const size = str({
  pattern: /^[1-9]\d?[\u00d7xX][1-9]\d?$/,
  patternDoc: 'columns × rows, written with U+00D7 (`2×1`; an ASCII `x` is taken as ×)',
});
const src = str({ maxLength: 2048, pattern: /^https?:\/\/[^\s]+$/i, patternDoc: 'an http or https URL' });
const dimension = obj({ size, src }, { open: true });
const settings = (drawer: boolean) =>
  obj(
    {
      default: { ...size, doc: 'one of the sizes of `dimensions`' },
      dimensions: arr(dimension, { minItems: 1 }),
      ...(drawer
        ? { drawer_component: opt(obj({ src }, { open: true, doc: 'the page shown when the card opens' })) }
        : {}),
    },
    { open: true },
  );
const label = str({ maxLength: 256 });
const id = { id: str({ maxLength: 64 }) };

const card = obj({
  id: str(),
  label: opt(str()),
  web_settings: settings(true),
  cast_settings: opt(settings(false)),
  app_name: opt(str({ doc: 'the app_name of the token that registered it' })),
  created_at: str({ doc: 'ISO 8601' }),
  updated_at: str({ doc: 'ISO 8601' }),
});

function answer(r: CardResult | undefined, cardId: string): RouteResult {
  if (!r) return failed(400, `id: no card with id ${cardId}`);
  return r.ok ? done(r.card) : failed(400, r.message);
}

/** The cards' routes. */
export function uiRoutes(s: OpenApiServices): RouteSpec[] {
  return [
    route({
      id: 'X-ui-cards',
      method: 'GET',
      path: '/ui/cards',
      summary: 'The dashboard cards add-ons registered (`data` is the array of cards)',
      auth: 'token',
      answer: arr(card),
      handle: () => done(s.cards.list()),
    }),
    route({
      id: 'X-ui-card-add',
      method: 'POST',
      path: '/ui/cards',
      summary: 'Register a dashboard card (the very same card registered again answers the one there is)',
      auth: 'token',
      body: body({ label: opt(label), web_settings: settings(true), cast_settings: opt(settings(false)) }),
      answer: card,
      handle: ({ body, token }) =>
        answer(s.cards.create(body, { token_id: token?.id ?? '', app_name: token?.app_name ?? null }), ''),
    }),
    route({
      id: 'X-ui-card-update',
      method: 'PUT',
      path: '/ui/cards/{id}',
      summary: 'Change a card: each field given replaces the one there is',
      auth: 'token',
      params: id,
      body: obj(
        { label: opt(label), web_settings: opt(settings(true)), cast_settings: opt(settings(false)) },
        { open: true, atLeastOne: ['label', 'web_settings', 'cast_settings'] },
      ),
      answer: card,
      handle: ({ params, body }) => answer(s.cards.update(params.id, body), params.id),
    }),
    route({
      id: 'X-ui-card-delete',
      method: 'DELETE',
      path: '/ui/cards/{id}',
      summary: 'Delete a card',
      auth: 'token',
      params: id,
      handle: ({ params }) => (s.cards.delete(params.id) ? done() : failed(400, `id: no card with id ${params.id}`)),
    }),
  ];
}
