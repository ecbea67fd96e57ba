import { describe, expect, it } from 'vitest';
import { arrivalDate } from '@/server/payouts/export';
import { SEPA_LENGTHS, sepaText } from '@/server/payouts/sepa';

describe('SEPA texts: the EPC basic Latin set, within the element length', () => {
  it('transliterates what it can: umlauts, ß, accents, ligatures, strokes; `_` as `-`, `&` as `+`, typographic quotes and dashes', () => {
    expect(sepaText('Müller_Söhne & Töchter – Straße', 70)).toBe('Mueller-Soehne + Toechter - Strasse');
    expect(sepaText('ÄÖÜ äöü ẞ', 70)).toBe('AeOeUe aeoeue SS');
    expect(sepaText('Crème brûlée à la façon de Zoë, Ñandú', 70)).toBe('Creme brulee a la facon de Zoe, Nandu');
    expect(sepaText('Ærø Œuvre Øster Łódź Đakovo Þór ﬁne', 70)).toBe('AEro OEuvre Oster Lodz Dakovo Thor fine');
    expect(sepaText('„Quote“ ‘single’ "double"', 70)).toBe("'Quote' 'single' 'double'");
    expect(sepaText("a-z A-Z 0-9 / - ? : ( ) . , ' +", 70)).toBe("a-z A-Z 0-9 / - ? : ( ) . , ' +");
  });

  it('replaces the rest with a space, collapsing runs and trimming: emoji, other scripts, symbols, line breaks', () => {
    expect(sepaText('🚀 Rocket  🦄 Shop\t\n#1 @home €5 <b>', 70)).toBe('Rocket Shop 1 home 5 b');
    expect(sepaText('Магазин Ivan', 70)).toBe('Ivan');
    expect(sepaText('🚀🦄', 70)).toBe('?');
  });

  it('cuts at the length after transliteration, without a trailing space', () => {
    expect(sepaText('Ä'.repeat(70), SEPA_LENGTHS.name)).toBe('Ae'.repeat(35));
    expect(sepaText(`${'a'.repeat(69)} b`, SEPA_LENGTHS.name)).toBe('a'.repeat(69));
    expect(sepaText('x'.repeat(500), SEPA_LENGTHS.remittance)).toHaveLength(140);
  });
});

describe('arrival: the weekday after the execution date, 00:00 UTC', () => {
  it('Monday to Thursday the next day; Friday, Saturday and Sunday the Monday after', () => {
    const arrivals = ['2026-03-02', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08', '2026-12-31'].map((date) => arrivalDate(date).toISOString());
    expect(arrivals).toEqual(['2026-03-03T00:00:00.000Z', '2026-03-06T00:00:00.000Z', '2026-03-09T00:00:00.000Z', '2026-03-09T00:00:00.000Z', '2026-03-09T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
  });
});
