import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiFailure } from '../../src/demo-api/errors.js';
import { FILTER_OBJECTS, groupsKey, matchesGroups, parseFilterGroups } from '../../src/demo-api/filters.js';
import { computeFacts, type Visit } from '../../src/demo-api/model.js';

let counter = 0;
function visit(
  overrides: {
    country?: [string, string];
    state?: string;
    city?: string;
    url?: string;
    browser?: string;
    extensions?: string[];
    campaign?: string | null;
    source?: string;
    visitor?: string;
    device?: [Visit['device']['type'], string];
    os?: string;
    ip?: string;
  } = {},
): Visit {
  counter++;
  const [country, code] = overrides.country ?? ['Germany', 'DE'];
  return {
    id: `vs_test_${counter}`,
    visitor_id: overrides.visitor ?? 'v_test',
    date: '2026-11-20T10:00:00.000Z',
    url: overrides.url ?? 'https://www.example-shop.com/pricing',
    referrer: '',
    ip: overrides.ip ?? '203.0.113.9',
    timezone: 'Europe/Berlin',
    duration: 30,
    browser: { name: overrides.browser ?? 'Chrome', version: '131.0', extensions: overrides.extensions ?? [] },
    device: {
      type: overrides.device?.[0] ?? 'desktop',
      name: overrides.device?.[1] ?? 'Desktop',
      os: { name: overrides.os ?? 'Windows', version: '11' },
    },
    location: { country, country_code: code, state: overrides.state ?? 'Berlin', city: overrides.city ?? 'Berlin' },
    screen: { width: 1920, height: 1080 },
    trafficSource: {
      source: overrides.source ?? 'google',
      channel: 'Organic Search',
      campaign: overrides.campaign === undefined ? null : overrides.campaign,
      source_id: 'x',
      channel_id: 'y',
      campaign_id: null,
    },
    params: {},
  };
}

const f = (object: string, field: string, operator: string, value: unknown) => ({ object, field, operator, value });
const matches = (groups: unknown, v: Visit) => matchesGroups(parseFilterGroups(groups), computeFacts(v));

function failure(input: unknown): ApiFailure {
  try {
    parseFilterGroups(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiFailure);
    return error as ApiFailure;
  }
  throw new Error('expected parseFilterGroups to refuse the input');
}

describe('filter validation', () => {
  it('treats absent, null and [] as no filtering', () => {
    expect(parseFilterGroups(undefined)).toEqual([]);
    expect(parseFilterGroups(null)).toEqual([]);
    expect(parseFilterGroups([])).toEqual([]);
  });

  it.each([
    ['an object instead of a list', { filters: [] }, /filter_groups must be an array/],
    ['a group that is not an object', ['x'], /filter_groups\[0\] must be an object/],
    ['a group without filters', [{}], /filter_groups\[0\]\.filters must be an array/],
    ['a group with an extra member', [{ filters: [], op: 'and' }], /unknown member 'op'/],
    ['a filter that is a string', [{ filters: ['country=DE'] }], /filters\[0\] must be an object/],
    [
      'a filter missing its value',
      [{ filters: [{ object: 'country', field: 'name', operator: 'contains' }] }],
      /filters\[0\]\.value is missing/,
    ],
    [
      'an unknown filter member',
      [{ filters: [{ ...f('country', 'name', 'contains', 'x'), negate: true }] }],
      /unknown member 'negate'/,
    ],
    [
      'an unknown object',
      [{ filters: [f('planet', 'name', 'contains', 'x')] }],
      /^unknown filter object 'planet' \(known: country, .*\) at filter_groups\[0\]\.filters\[0\]$/,
    ],
    [
      'an unknown field',
      [{ filters: [f('city', 'zip', 'contains', 'x')] }],
      /unknown field 'zip' for filter object 'city' \(known: name, label\)/,
    ],
    [
      'an unknown operator',
      [{ filters: [f('city', 'name', 'equals', 'x')] }],
      /unknown filter operator 'equals' \(known: contains, is_any_of\)/,
    ],
    [
      'contains with an array',
      [{ filters: [f('city', 'name', 'contains', ['x'])] }],
      /value must be a string for contains/,
    ],
    [
      'is_any_of with numbers',
      [{ filters: [f('city', 'name', 'is_any_of', [1, 2])] }],
      /string or an array of strings for is_any_of/,
    ],
    ['is_any_of with null', [{ filters: [f('city', 'name', 'is_any_of', null)] }], /string or an array of strings/],
    [
      'a second group at fault',
      [{ filters: [] }, { filters: [f('x', 'name', 'contains', 'a')] }],
      /at filter_groups\[1\]\.filters\[0\]/,
    ],
  ])('refuses %s with a 400 that says why', (_name, input, message) => {
    const error = failure(input);
    expect(error.status).toBe(400);
    expect(error.code).toBe('bad_request');
    expect(error.message).toMatch(message);
  });

  it('does not accept inherited property names as objects or fields', () => {
    expect(failure([{ filters: [f('constructor', 'name', 'contains', 'x')] }]).message).toMatch(
      /unknown filter object/,
    );
    expect(failure([{ filters: [f('city', 'toString', 'contains', 'x')] }]).message).toMatch(/unknown field/);
  });

  it('accepts every documented object and field with both operators', () => {
    for (const [object, fields] of Object.entries(FILTER_OBJECTS)) {
      for (const field of Object.keys(fields)) {
        expect(() =>
          parseFilterGroups([
            { filters: [f(object, field, 'contains', 'a'), f(object, field, 'is_any_of', ['a', 'b'])] },
          ]),
        ).not.toThrow();
      }
    }
  });
});

describe('filter matching', () => {
  const germany = visit();
  const france = visit({ country: ['France', 'FR'], state: 'Île-de-France', city: 'Paris' });
  const texas = visit({ country: ['United States', 'US'], state: 'Texas', city: 'Paris' });

  it('is_any_of is a case-insensitive exact match, contains a case-insensitive substring', () => {
    expect(matches([{ filters: [f('country', 'name', 'is_any_of', ['GERMANY'])] }], germany)).toBe(true);
    expect(matches([{ filters: [f('country', 'name', 'is_any_of', ['Germ'])] }], germany)).toBe(false);
    expect(matches([{ filters: [f('country', 'name', 'contains', 'ERMA')] }], germany)).toBe(true);
    expect(matches([{ filters: [f('country', 'name', 'contains', 'france')] }], germany)).toBe(false);
    expect(matches([{ filters: [f('country', 'code', 'is_any_of', ['fr', 'de'])] }], france)).toBe(true);
  });

  it('accepts a single string for is_any_of; an empty list matches nothing', () => {
    expect(matches([{ filters: [f('country', 'name', 'is_any_of', 'france')] }], france)).toBe(true);
    expect(matches([{ filters: [f('country', 'name', 'is_any_of', [])] }], france)).toBe(false);
  });

  it('city.name joins same-named cities; city.label tells them apart', () => {
    const byName = [{ filters: [f('city', 'name', 'is_any_of', ['Paris'])] }];
    expect(matches(byName, france)).toBe(true);
    expect(matches(byName, texas)).toBe(true);
    const byLabel = [{ filters: [f('city', 'label', 'is_any_of', ['Paris, Texas, US'])] }];
    expect(matches(byLabel, france)).toBe(false);
    expect(matches(byLabel, texas)).toBe(true);
    expect(matches([{ filters: [f('state', 'label', 'is_any_of', ['Texas, US'])] }], texas)).toBe(true);
  });

  it('page.name is the path and page.url the URL, both without the query string', () => {
    const v = visit({ url: 'https://www.example-shop.com/products/trail-jacket?utm_source=x&ref=nav' });
    expect(matches([{ filters: [f('page', 'name', 'is_any_of', ['/products/trail-jacket'])] }], v)).toBe(true);
    expect(
      matches(
        [{ filters: [f('page', 'url', 'is_any_of', ['https://www.example-shop.com/products/trail-jacket'])] }],
        v,
      ),
    ).toBe(true);
    expect(matches([{ filters: [f('page', 'url', 'contains', 'utm_source')] }], v)).toBe(false);
    expect(
      matches([{ filters: [f('page', 'name', 'is_any_of', ['/'])] }], visit({ url: 'https://www.example-shop.com' })),
    ).toBe(true);
  });

  it('extension matches when any of the browser extensions does', () => {
    const v = visit({ extensions: ['Grammarly', 'uBlock Origin'] });
    expect(matches([{ filters: [f('extension', 'name', 'is_any_of', ['ublock origin'])] }], v)).toBe(true);
    expect(matches([{ filters: [f('extension', 'name', 'contains', 'gramm')] }], v)).toBe(true);
    expect(matches([{ filters: [f('extension', 'name', 'contains', 'honey')] }], v)).toBe(false);
    expect(matches([{ filters: [f('extension', 'name', 'contains', '')] }], visit())).toBe(false);
  });

  it('a visit without a campaign matches no campaign filter', () => {
    expect(matches([{ filters: [f('campaign', 'name', 'contains', '')] }], visit())).toBe(false);
    expect(matches([{ filters: [f('campaign', 'name', 'contains', '')] }], visit({ campaign: 'spring_sale' }))).toBe(
      true,
    );
  });

  it('visitor.name is an alias of visitor.id; ip.address, device and os fields work', () => {
    const v = visit({ visitor: 'v_ABC', ip: '2a02:1::5', device: ['mobile', 'Pixel 8'], os: 'Android' });
    expect(matches([{ filters: [f('visitor', 'name', 'is_any_of', ['v_abc'])] }], v)).toBe(true);
    expect(matches([{ filters: [f('visitor', 'id', 'is_any_of', ['v_abc'])] }], v)).toBe(true);
    expect(matches([{ filters: [f('ip', 'address', 'contains', '2A02:')] }], v)).toBe(true);
    expect(
      matches(
        [
          {
            filters: [
              f('device', 'type', 'is_any_of', ['mobile']),
              f('device', 'name', 'contains', 'pixel'),
              f('os', 'name', 'is_any_of', 'android'),
            ],
          },
        ],
        v,
      ),
    ).toBe(true);
  });

  it('an empty group matches everything; no groups match everything', () => {
    expect(matches([{ filters: [] }], germany)).toBe(true);
    expect(matches([], germany)).toBe(true);
    expect(matches([{ filters: [f('country', 'code', 'is_any_of', ['FR'])] }, { filters: [] }], germany)).toBe(true);
  });

  it('ANDs inside a group and ORs across groups (property)', () => {
    const pool = [
      f('country', 'code', 'is_any_of', ['DE']),
      f('country', 'name', 'contains', 'fran'),
      f('city', 'name', 'is_any_of', ['Paris']),
      f('browser', 'name', 'is_any_of', ['Firefox', 'Safari']),
      f('extension', 'name', 'contains', 'block'),
      f('campaign', 'name', 'is_any_of', ['spring_sale']),
      f('source', 'name', 'contains', 'o'),
    ];
    const visits = [
      germany,
      france,
      texas,
      visit({ browser: 'Firefox', extensions: ['AdBlock'], campaign: 'spring_sale', source: 'bing' }),
      visit({ country: ['France', 'FR'], browser: 'Safari', source: 'direct' }),
    ];
    const single = (filter: (typeof pool)[number], v: Visit) => matches([{ filters: [filter] }], v);
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...pool), { maxLength: 3 }), { maxLength: 3 }),
        fc.constantFrom(...visits),
        (groups, v) => {
          const expected = groups.length === 0 || groups.some((g) => g.every((filter) => single(filter, v)));
          return (
            matches(
              groups.map((filters) => ({ filters })),
              v,
            ) === expected
          );
        },
      ),
    );
  });
});

describe('groupsKey', () => {
  it('is equal for filters that differ only in letter case, and different otherwise', () => {
    const a = parseFilterGroups([{ filters: [f('country', 'name', 'is_any_of', ['Germany'])] }]);
    const b = parseFilterGroups([{ filters: [f('country', 'name', 'is_any_of', 'GERMANY')] }]);
    const c = parseFilterGroups([{ filters: [f('country', 'name', 'contains', 'Germany')] }]);
    const d = parseFilterGroups([{ filters: [f('country', 'name', 'is_any_of', ['Germany'])] }, { filters: [] }]);
    expect(groupsKey(a)).toBe(groupsKey(b));
    expect(groupsKey(a)).not.toBe(groupsKey(c));
    expect(groupsKey(a)).not.toBe(groupsKey(d));
  });
});
