/**
 * filter_groups: validation and matching against a visit's precomputed facts.
 * Filters inside a group are ANDed, groups are ORed; no groups means no
 * filtering, and a group with an empty `filters` list matches every visit.
 */

import { badRequest } from './errors.js';
import type { FilterKey, VisitFacts } from './model.js';

export const OPERATORS = ['contains', 'is_any_of'] as const;
export type Operator = (typeof OPERATORS)[number];

type Target = FilterKey | 'extension.name';

/** Every filter object and its fields. `visitor.name` is an alias of `visitor.id`. */
export const FILTER_OBJECTS: Readonly<Record<string, Readonly<Record<string, Target>>>> = {
  country: { name: 'country.name', code: 'country.code', label: 'country.label' },
  state: { name: 'state.name', label: 'state.label' },
  city: { name: 'city.name', label: 'city.label' },
  page: { name: 'page.name', url: 'page.url' },
  source: { name: 'source.name' },
  channel: { name: 'channel.name' },
  campaign: { name: 'campaign.name' },
  browser: { name: 'browser.name', version: 'browser.version' },
  device: { name: 'device.name', type: 'device.type' },
  os: { name: 'os.name', version: 'os.version' },
  extension: { name: 'extension.name' },
  visitor: { id: 'visitor.id', name: 'visitor.id' },
  ip: { address: 'ip.address' },
};

export interface CompiledFilter {
  readonly target: Target;
  readonly operator: Operator;
  /** Lower-cased. */
  readonly values: readonly string[];
  readonly test: (facts: VisitFacts) => boolean;
}

export type CompiledGroups = readonly (readonly CompiledFilter[])[];

const FILTER_MEMBERS = ['object', 'field', 'operator', 'value'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `'${value}'` : `a ${typeof value}`;
}

function compile(target: Target, operator: Operator, values: readonly string[]): CompiledFilter {
  let test: (facts: VisitFacts) => boolean;
  if (target === 'extension.name') {
    if (operator === 'contains') {
      const needle = values[0] ?? '';
      test = (f) => f.extensions.some((e) => e.includes(needle));
    } else {
      const set = new Set(values);
      test = (f) => f.extensions.some((e) => set.has(e));
    }
  } else if (operator === 'contains') {
    const needle = values[0] ?? '';
    test = (f) => {
      const value = f.lower[target];
      return value !== null && value.includes(needle);
    };
  } else {
    const set = new Set(values);
    test = (f) => {
      const value = f.lower[target];
      return value !== null && set.has(value);
    };
  }
  return { target, operator, values, test };
}

function parseFilter(input: unknown, where: string): CompiledFilter {
  if (!isRecord(input)) throw badRequest(`${where} must be an object with object, field, operator and value`);
  for (const key of Object.keys(input)) {
    if (!(FILTER_MEMBERS as readonly string[]).includes(key))
      throw badRequest(`${where} has an unknown member '${key}' (known: ${FILTER_MEMBERS.join(', ')})`);
  }
  for (const key of FILTER_MEMBERS) if (input[key] === undefined) throw badRequest(`${where}.${key} is missing`);

  const { object, field, operator, value } = input;
  const objects = Object.keys(FILTER_OBJECTS);
  if (typeof object !== 'string' || !Object.hasOwn(FILTER_OBJECTS, object)) {
    throw badRequest(`unknown filter object ${describe(object)} (known: ${objects.join(', ')}) at ${where}`);
  }
  const fields = FILTER_OBJECTS[object] as Readonly<Record<string, Target>>;
  if (typeof field !== 'string' || !Object.hasOwn(fields, field)) {
    throw badRequest(
      `unknown field ${describe(field)} for filter object '${object}' (known: ${Object.keys(fields).join(', ')}) at ${where}`,
    );
  }
  if (typeof operator !== 'string' || !(OPERATORS as readonly string[]).includes(operator)) {
    throw badRequest(`unknown filter operator ${describe(operator)} (known: ${OPERATORS.join(', ')}) at ${where}`);
  }
  const target = fields[field] as Target;
  if (operator === 'contains') {
    if (typeof value !== 'string')
      throw badRequest(`${where}.value must be a string for contains, got ${describe(value)}`);
    return compile(target, 'contains', [value.toLowerCase()]);
  }
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) {
    throw badRequest(`${where}.value must be a string or an array of strings for is_any_of, got ${describe(value)}`);
  }
  return compile(
    target,
    'is_any_of',
    list.map((v) => v.toLowerCase()),
  );
}

/** Validates filter_groups (undefined or null = none) and compiles them; throws a 400 ApiFailure naming the problem. */
export function parseFilterGroups(input: unknown): CompiledGroups {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input))
    throw badRequest(`filter_groups must be an array of filter groups, got ${describe(input)}`);
  return input.map((group, g) => {
    const where = `filter_groups[${g}]`;
    if (!isRecord(group)) throw badRequest(`${where} must be an object with a filters array`);
    for (const key of Object.keys(group)) {
      if (key !== 'filters') throw badRequest(`${where} has an unknown member '${key}' (known: filters)`);
    }
    if (!Array.isArray(group['filters'])) throw badRequest(`${where}.filters must be an array`);
    return (group['filters'] as unknown[]).map((filter, f) => parseFilter(filter, `${where}.filters[${f}]`));
  });
}

/** True when no groups are given, or at least one group has all its filters hold. */
export function matchesGroups(groups: CompiledGroups, facts: VisitFacts): boolean {
  if (groups.length === 0) return true;
  for (const group of groups) {
    let all = true;
    for (const filter of group) {
      if (!filter.test(facts)) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

/** A canonical string for caching: equal strings mean equal filtering. */
export function groupsKey(groups: CompiledGroups): string {
  return JSON.stringify(groups.map((group) => group.map((f) => [f.target, f.operator, f.values])));
}
