/**
 * The site an analytics account measures. The default is the web shop the generator
 * draws; another site takes the same kind of traffic under its own origin, its own page
 * paths, its own referrers where a referrer names more than a host, and its own ids
 * (`v_<tag>_…`, `vs_<tag>_…`), so no record of one account can be taken for another's.
 */

import { HOSTILE_PAGE_PATH, REDDIT_COMMUNITIES, SITE_ORIGIN } from './catalog.js';
import { DEMO_VISITORS } from './fixtures.js';
import { pageOf, type Visit } from './model.js';

export interface DemoSite {
  /** In every visitor and visit id of the site (`v_<tag>_…`, `vs_<tag>_…`); '' only for the shop. */
  readonly tag: string;
  /** The origin of its pages, e.g. https://www.example-shop.com. */
  readonly origin: string;
  /** Which pages it has: the shop's, or a software company's (every path but `/` different). */
  readonly pages: 'shop' | 'software';
}

export const SHOP_SITE: DemoSite = Object.freeze({ tag: '', origin: SITE_ORIGIN, pages: 'shop' });
export const SOFTWARE_SITE: DemoSite = Object.freeze({
  tag: 'oc',
  origin: 'https://www.other-co.example',
  pages: 'software',
});

/** Ids the shop uses after `v_`: a tag must not be one of them. */
const RESERVED_TAGS = new Set(['demo', 'live', 'wave']);

export function checkSite(site: DemoSite): DemoSite {
  if (site.tag === '' && (site.origin !== SITE_ORIGIN || site.pages !== 'shop'))
    throw new RangeError('only the shop site has no tag');
  if (site.tag !== '' && (!/^[a-z0-9]{1,12}$/.test(site.tag) || RESERVED_TAGS.has(site.tag)))
    throw new RangeError(`a site tag is 1–12 of a–z and 0–9, and not demo, live or wave; got "${site.tag}"`);
  if (!/^https?:\/\/[^/?#]+$/.test(site.origin)) throw new RangeError(`a site origin has no path: "${site.origin}"`);
  return site;
}

/** The visitor id prefix of a site: `v_` for the shop, `v_<tag>_` for the others. */
export const visitorPrefix = (site: DemoSite): string => (site.tag ? `v_${site.tag}_` : 'v_');
/** The visit id prefix of a site. */
export const visitPrefix = (site: DemoSite): string => (site.tag ? `vs_${site.tag}_` : 'vs_');

/** The shop's id in another site: `v_demo_attacker` → `v_oc_demo_attacker`. */
export function siteId(site: DemoSite, id: string): string {
  if (!site.tag) return id;
  if (id.startsWith('vs_')) return `vs_${site.tag}_${id.slice(3)}`;
  if (id.startsWith('v_')) return `v_${site.tag}_${id.slice(2)}`;
  return `${site.tag}_${id}`;
}

/** The fixed visitors (DEMO_VISITORS) as they are called at a site: `v_oc_demo_attacker`, … */
export function demoVisitorsOf(site: DemoSite): { readonly [K in keyof typeof DEMO_VISITORS]: string } {
  return Object.fromEntries(Object.entries(DEMO_VISITORS).map(([role, id]) => [role, siteId(site, id)])) as {
    [K in keyof typeof DEMO_VISITORS]: string;
  };
}

const SOFTWARE_PAGES: Readonly<Record<string, string>> = {
  '/pricing': '/plans',
  '/products': '/features',
  '/blog': '/journal',
  '/sale': '/offers',
  '/new-arrivals': '/whats-new',
  '/cart': '/trial',
  '/checkout': '/subscribe',
  '/checkout/success': '/subscribe/done',
  '/login': '/sign-in',
  '/signup': '/register',
  '/account': '/workspace',
  '/account/orders': '/workspace/billing',
  '/search': '/find',
  '/about': '/company',
  '/contact': '/talk-to-sales',
  '/careers': '/jobs',
  '/docs': '/guides',
  '/help': '/support',
  '/help/shipping': '/support/onboarding',
  '/help/returns': '/support/cancelling',
  '/help/payments': '/support/invoices',
  '/gift-cards': '/referrals',
  '/stores': '/partners',
  '/legal/privacy': '/trust/privacy',
  '/legal/terms': '/trust/terms',
};
const SOFTWARE_SECTIONS: readonly (readonly [string, string])[] = [
  ['/collections/', '/solutions/'],
  ['/products/', '/templates/'],
  ['/blog/', '/journal/'],
  ['/docs/', '/guides/'],
];
const SOFTWARE_WORDS: Readonly<Record<string, string>> = {
  trail: 'agile',
  urban: 'remote',
  ultralight: 'lean',
  merino: 'hybrid',
  waterproof: 'secure',
  everyday: 'daily',
  'running-shoes': 'roadmap',
  backpack: 'kanban',
  jacket: 'timesheet',
  't-shirt': 'okrs',
  'water-bottle': 'sprint',
  headphones: 'standup',
};
const SOFTWARE_COMMUNITIES = ['projectmanagement', 'agile', 'sysadmin', 'SaaS', 'startups'];
const SOFTWARE_PARTNER_BLOG = 'https://blog.integrator.example/';

function softwarePath(path: string): string {
  if (path === '/' || path === HOSTILE_PAGE_PATH) return path;
  const fixed = SOFTWARE_PAGES[path];
  if (fixed) return fixed;
  for (const [from, to] of SOFTWARE_SECTIONS) {
    if (!path.startsWith(from)) continue;
    const rest = path.slice(from.length);
    const product = /^([a-z]+)-(.+)$/.exec(rest);
    if (from === '/products/' && product)
      return `${to}${SOFTWARE_WORDS[product[1]!] ?? product[1]}-${SOFTWARE_WORDS[product[2]!] ?? product[2]}`;
    return `${to}${rest}`;
  }
  return `/site${path}`;
}

function softwareReferrer(referrer: string): string {
  if (referrer === 'https://blog.partner.example/') return SOFTWARE_PARTNER_BLOG;
  const reddit = /^https:\/\/www\.reddit\.com\/r\/([^/]+)\/$/.exec(referrer);
  if (reddit) {
    const at = REDDIT_COMMUNITIES.indexOf(reddit[1]!);
    if (at >= 0) return `https://www.reddit.com/r/${SOFTWARE_COMMUNITIES[at % SOFTWARE_COMMUNITIES.length]}/`;
  }
  return referrer;
}

/** A shop page URL (with its query string) at another site. */
export function siteUrl(site: DemoSite, url: string): string {
  if (site.tag === '') return url;
  const { pageUrl, pagePath } = pageOf(url);
  const rest = url.slice(pageUrl.length);
  return `${site.origin}${site.pages === 'software' ? softwarePath(pagePath) : pagePath}${rest}`;
}

/**
 * A visit the generator made for the shop, moved to another site: ids, page and referrer.
 * Nested records stay shared (the generator freezes them).
 */
export function moveVisit(site: DemoSite, visit: Visit): Visit {
  if (site.tag === '') return visit;
  return {
    ...visit,
    id: siteId(site, visit.id),
    visitor_id: siteId(site, visit.visitor_id),
    url: siteUrl(site, visit.url),
    referrer: site.pages === 'software' ? softwareReferrer(visit.referrer) : visit.referrer,
  };
}
