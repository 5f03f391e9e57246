/**
 * Dashboard cards of add-ons (`ui/cards`, COMPAT.md "seen in clients"): an add-on registers a card
 * (`label`, `web_settings` with the sizes of its pages and a `drawer_component`, `cast_settings`)
 * and the console shows each as a frame of the add-on's page. Kept in the store as sent, with
 * sizes written `2×1` (U+00D7, as the add-ons write them; an ASCII `x` is taken as that).
 * Registering the very same card again (add-ons do, at every start) gives back the card there is.
 */
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { isObject } from '../lib/object.ts';
import type { Db } from '../store/db.ts';

/** Most cards kept: each is a frame on the dashboard. */
export const MAX_UI_CARDS = 100;

/** A card's settings for one surface: its sizes (each with the page shown at that size). */
export interface CardSettings {
  default: string;
  dimensions: { size: string; src: string }[];
  drawer_component?: { src: string };
  [more: string]: unknown;
}

export interface UiCard {
  id: string;
  label?: string;
  web_settings: CardSettings;
  cast_settings?: CardSettings;
  app_name?: string;
  created_at: string;
  updated_at: string;
}

/** What a client gives to create a card, or to change one (every field given replaces the old). */
export interface CardInput {
  label?: string;
  web_settings?: CardSettings;
  cast_settings?: CardSettings;
}

interface Row {
  id: string;
  label: string | null;
  web_settings: string;
  cast_settings: string | null;
  app_name: string | null;
  token_id: string | null;
  created_at: string;
  updated_at: string;
}

export type CardResult = { ok: true; card: UiCard } | { ok: false; message: string };

/** `2x1` and `2X1` as `2×1`. */
function normalSize(size: string): string {
  return size.replace(/[xX]/, '\u00d7');
}

/** The settings with their sizes normalised, or why they do not hold together. */
function normalise(s: CardSettings, where: string): { ok: true; value: CardSettings } | { ok: false; message: string } {
  const dimensions = s.dimensions.map((d) => ({ ...d, size: normalSize(d.size) }));
  const sizes = dimensions.map((d) => d.size);
  const dflt = normalSize(s.default);
  if (!sizes.includes(dflt))
    return {
      ok: false,
      message: `${where}.default: ${dflt} is not one of the sizes of ${where}.dimensions (${sizes.join(', ')})`,
    };
  const twice = sizes.find((v, i) => sizes.indexOf(v) !== i);
  if (twice) return { ok: false, message: `${where}.dimensions: size ${twice} is given twice` };
  return { ok: true, value: { ...s, default: dflt, dimensions } };
}

function toCard(r: Row): UiCard {
  const card: UiCard = {
    id: r.id,
    web_settings: JSON.parse(r.web_settings) as CardSettings,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
  if (r.label !== null) card.label = r.label;
  if (r.cast_settings !== null) card.cast_settings = JSON.parse(r.cast_settings) as CardSettings;
  if (r.app_name !== null) card.app_name = r.app_name;
  return card;
}

/** Deletes every card (factory reset); shared by the running gateway and the offline CLI path. */
export function clearUiCards(db: Db): number {
  return db.prepare('DELETE FROM ui_cards').run().changes;
}

export class UiCards {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** Every card, oldest first. */
  list(): UiCard[] {
    return this.db.prepare<[], Row>('SELECT * FROM ui_cards ORDER BY rowid').all().map(toCard);
  }

  get(id: string): UiCard | undefined {
    const row = this.db.prepare<[string], Row>('SELECT * FROM ui_cards WHERE id = ?').get(id);
    return row ? toCard(row) : undefined;
  }

  /** Adds a card (or gives back the identical one there is); committed before it returns. */
  create(
    input: CardInput & { web_settings: CardSettings },
    by: { token_id: string; app_name: string | null },
  ): CardResult {
    const checked = this.check(input);
    if (!checked.ok) return checked;
    const { label, web_settings, cast_settings } = checked.value;
    const same = this.list().find(
      (c) =>
        c.label === label &&
        isDeepStrictEqual(c.web_settings, web_settings) &&
        isDeepStrictEqual(c.cast_settings, cast_settings),
    );
    if (same) return { ok: true, card: same };
    const count = this.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM ui_cards').get()?.n ?? 0;
    if (count >= MAX_UI_CARDS)
      return { ok: false, message: `at most ${MAX_UI_CARDS} cards can be registered; delete one first` };
    const at = new Date(this.now()).toISOString();
    const id = randomBytes(8).toString('hex');
    this.db
      .prepare(
        'INSERT INTO ui_cards (id, label, web_settings, cast_settings, app_name, token_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        label ?? null,
        JSON.stringify(web_settings),
        cast_settings ? JSON.stringify(cast_settings) : null,
        by.app_name,
        by.token_id,
        at,
        at,
      );
    return { ok: true, card: this.get(id) as UiCard };
  }

  /** Replaces the fields given; undefined when there is no such card. */
  update(id: string, input: CardInput): CardResult | undefined {
    const card = this.get(id);
    if (!card) return undefined;
    const checked = this.check({
      label: input.label ?? card.label,
      web_settings: input.web_settings ?? card.web_settings,
      cast_settings: input.cast_settings ?? card.cast_settings,
    });
    if (!checked.ok) return checked;
    const v = checked.value;
    this.db
      .prepare('UPDATE ui_cards SET label = ?, web_settings = ?, cast_settings = ?, updated_at = ? WHERE id = ?')
      .run(
        v.label ?? null,
        JSON.stringify(v.web_settings),
        v.cast_settings ? JSON.stringify(v.cast_settings) : null,
        new Date(this.now()).toISOString(),
        id,
      );
    return { ok: true, card: this.get(id) as UiCard };
  }

  /** Deletes a card; false when there is no such card. */
  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM ui_cards WHERE id = ?').run(id).changes > 0;
  }

  private check(
    input: CardInput,
  ):
    | { ok: true; value: { label?: string; web_settings: CardSettings; cast_settings?: CardSettings } }
    | { ok: false; message: string } {
    if (!input.web_settings || !isObject(input.web_settings)) return { ok: false, message: 'web_settings: required' };
    const web = normalise(input.web_settings, 'web_settings');
    if (!web.ok) return web;
    let cast: CardSettings | undefined;
    if (input.cast_settings) {
      const c = normalise(input.cast_settings, 'cast_settings');
      if (!c.ok) return c;
      cast = c.value;
    }
    return {
      ok: true,
      value: {
        ...(input.label !== undefined ? { label: input.label } : {}),
        web_settings: web.value,
        ...(cast ? { cast_settings: cast } : {}),
      },
    };
  }
}
