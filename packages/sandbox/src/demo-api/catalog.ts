/**
 * Static reference data the demo data set is drawn from: pages, traffic sources,
 * campaigns and companies (places.ts and devices.ts hold the rest).
 * Nothing here depends on the seed, so tests can rely on these names.
 */

import { uuidFromName } from './random.js';

export const SITE_ORIGIN = 'https://www.example-shop.com';

// ---------------------------------------------------------------- pages

/** The hostile page path kept in the data set for escaping tests (stored decoded, as trackers often report it). */
export const HOSTILE_PAGE_PATH = '/landing/<https://evil.example|click>';

const PRODUCT_ADJECTIVES = ['classic', 'trail', 'urban', 'ultralight', 'merino', 'waterproof', 'everyday', 'studio'];
const PRODUCT_NOUNS = ['running-shoes', 'backpack', 'jacket', 't-shirt', 'water-bottle', 'headphones'];
const BLOG_SLUGS = [
  'how-to-choose-running-shoes',
  'packing-list-for-a-weekend-hike',
  'merino-vs-synthetic',
  'caring-for-your-rain-jacket',
  'our-2026-sustainability-report',
  'behind-the-scenes-at-the-factory',
  'five-trails-near-berlin',
  'gift-ideas-for-runners',
  'how-we-test-waterproofing',
  'the-perfect-carry-on',
  'commuting-by-bike-in-winter',
  'what-is-ultralight-backpacking',
  'staff-picks-october',
  'staff-picks-november',
  'meet-the-designers',
  'repair-dont-replace',
  'choosing-headphones-for-travel',
  'layering-101',
  'a-guide-to-sock-materials',
  'marathon-training-week-one',
  'marathon-training-week-two',
  'hydration-myths',
  'black-friday-deals-explained',
  'free-returns-policy-update',
  'new-store-in-amsterdam',
  'why-we-dropped-plastic-packaging',
  'customer-stories-anna',
  'customer-stories-raj',
  'care-guide-leather',
  'spring-collection-preview',
];
const DOC_SECTIONS = ['getting-started', 'api', 'integrations', 'webhooks', 'billing'];
const DOC_TOPICS = ['overview', 'authentication', 'quickstart', 'faq', 'limits', 'errors'];
const COLLECTIONS = [
  'men',
  'women',
  'kids',
  'outdoor',
  'running',
  'travel',
  'accessories',
  'sale',
  'new',
  'bestsellers',
];

/** Site paths with relative weights (popular pages first). ~150 distinct paths. */
export const PAGES: readonly (readonly [string, number])[] = (() => {
  const out: [string, number][] = [
    ['/', 300],
    ['/pricing', 90],
    ['/products', 80],
    ['/blog', 45],
    ['/sale', 45],
    ['/new-arrivals', 35],
    ['/cart', 40],
    ['/checkout', 25],
    ['/checkout/success', 10],
    ['/login', 30],
    ['/signup', 20],
    ['/account', 15],
    ['/account/orders', 10],
    ['/search', 35],
    ['/about', 15],
    ['/contact', 12],
    ['/careers', 8],
    ['/docs', 20],
    ['/help', 12],
    ['/help/shipping', 10],
    ['/help/returns', 9],
    ['/help/payments', 6],
    ['/gift-cards', 6],
    ['/stores', 7],
    ['/legal/privacy', 4],
    ['/legal/terms', 3],
  ];
  COLLECTIONS.forEach((c, i) => out.push([`/collections/${c}`, 20 / (i + 1)]));
  let rank = 0;
  for (const noun of PRODUCT_NOUNS) {
    for (const adjective of PRODUCT_ADJECTIVES) {
      rank += 1;
      out.push([`/products/${adjective}-${noun}`, 30 / Math.sqrt(rank)]);
    }
  }
  BLOG_SLUGS.forEach((slug, i) => out.push([`/blog/${slug}`, 12 / Math.sqrt(i + 1)]));
  for (const section of DOC_SECTIONS) for (const topic of DOC_TOPICS) out.push([`/docs/${section}/${topic}`, 2]);
  return out;
})();

/** Query strings sometimes seen on page URLs (without a campaign). */
export const PAGE_QUERIES: readonly string[] = [
  '?ref=nav',
  '?ref=footer',
  '?variant=blue',
  '?q=shoes',
  '?page=2',
  '?sort=price',
  '?color=black&size=m',
];

// ---------------------------------------------------------------- traffic

export type Channel = 'Organic Search' | 'Paid Search' | 'Social' | 'Email' | 'Referral' | 'Direct' | 'Display';

export const CHANNELS: readonly Channel[] = [
  'Organic Search',
  'Paid Search',
  'Social',
  'Email',
  'Referral',
  'Direct',
  'Display',
];

export interface SourceSpec {
  readonly name: string;
  readonly label: string;
  readonly weight: number;
  readonly channels: readonly (readonly [Channel, number])[];
  /** Referrer URL; `*` is replaced by a random token. */
  readonly referrer: string;
}

export const SOURCES: readonly SourceSpec[] = [
  { name: 'direct', label: 'Direct', weight: 22, channels: [['Direct', 1]], referrer: '' },
  {
    name: 'google',
    label: 'Google',
    weight: 30,
    channels: [
      ['Organic Search', 78],
      ['Paid Search', 22],
    ],
    referrer: 'https://www.google.com/',
  },
  {
    name: 'bing',
    label: 'Bing',
    weight: 4,
    channels: [
      ['Organic Search', 80],
      ['Paid Search', 20],
    ],
    referrer: 'https://www.bing.com/',
  },
  {
    name: 'duckduckgo',
    label: 'DuckDuckGo',
    weight: 2,
    channels: [['Organic Search', 1]],
    referrer: 'https://duckduckgo.com/',
  },
  { name: 'facebook', label: 'Facebook', weight: 6, channels: [['Social', 1]], referrer: 'https://www.facebook.com/' },
  { name: 'instagram', label: 'Instagram', weight: 3, channels: [['Social', 1]], referrer: 'https://l.instagram.com/' },
  { name: 'twitter', label: 'X (Twitter)', weight: 2.5, channels: [['Social', 1]], referrer: 'https://t.co/*' },
  { name: 'linkedin', label: 'LinkedIn', weight: 3, channels: [['Social', 1]], referrer: 'https://www.linkedin.com/' },
  { name: 'reddit', label: 'Reddit', weight: 2, channels: [['Social', 1]], referrer: 'https://www.reddit.com/r/*/' },
  { name: 'youtube', label: 'YouTube', weight: 1.5, channels: [['Social', 1]], referrer: 'https://www.youtube.com/' },
  { name: 'newsletter', label: 'Newsletter', weight: 5, channels: [['Email', 1]], referrer: '' },
  { name: 'github', label: 'GitHub', weight: 2, channels: [['Referral', 1]], referrer: 'https://github.com/' },
  {
    name: 'producthunt',
    label: 'Product Hunt',
    weight: 1,
    channels: [['Referral', 1]],
    referrer: 'https://www.producthunt.com/',
  },
  {
    name: 'hackernews',
    label: 'Hacker News',
    weight: 1,
    channels: [['Referral', 1]],
    referrer: 'https://news.ycombinator.com/',
  },
  { name: 'medium', label: 'Medium', weight: 1, channels: [['Referral', 1]], referrer: 'https://medium.com/' },
  {
    name: 'partner-blog',
    label: 'Partner blog',
    weight: 1,
    channels: [['Referral', 1]],
    referrer: 'https://blog.partner.example/',
  },
  {
    name: 'doubleclick',
    label: 'DoubleClick',
    weight: 2,
    channels: [['Display', 1]],
    referrer: 'https://googleads.g.doubleclick.net/',
  },
  { name: 'criteo', label: 'Criteo', weight: 1, channels: [['Display', 1]], referrer: 'https://www.criteo.com/' },
];

export const REDDIT_COMMUNITIES: readonly string[] = ['running', 'hiking', 'BuyItForLife', 'onebag', 'CampingGear'];

/** Probability that a visit arriving through a channel carries a campaign. */
export const CAMPAIGN_CHANCE: Readonly<Record<Channel, number>> = {
  'Organic Search': 0,
  'Paid Search': 1,
  Social: 0.4,
  Email: 0.95,
  Referral: 0,
  Direct: 0,
  Display: 1,
};

export const UTM_MEDIUM: Readonly<Record<Channel, string>> = {
  'Organic Search': 'organic',
  'Paid Search': 'cpc',
  Social: 'social',
  Email: 'email',
  Referral: 'referral',
  Direct: 'none',
  Display: 'display',
};

export const CAMPAIGNS: readonly (readonly [string, number])[] = [
  ['black-friday-2026', 18],
  ['cyber-monday-2026', 8],
  ['spring_sale', 9],
  ['summer-sale', 10],
  ['holiday-gift-guide', 8],
  ['weekly-newsletter', 14],
  ['product-launch-v2', 7],
  ['retargeting-q4', 9],
  ['brand-awareness', 6],
  ['webinar-ai-trends', 3],
  ['free-shipping-week', 5],
  ['back-to-school', 4],
];

/** Rare hostile campaign names, present in a few visits for escaping tests. */
export const HOSTILE_CAMPAIGN = '<!channel> launch';
export const EMOJI_CAMPAIGN = '🚀 launch-week 🎉';

export const CHANNEL_LABELS: Readonly<Record<string, string>> = Object.fromEntries(CHANNELS.map((c) => [c, c]));
export const SOURCE_LABELS: Readonly<Record<string, string>> = Object.fromEntries(
  SOURCES.map((s) => [s.name, s.label]),
);

export const sourceId = (name: string): string => uuidFromName(`source:${name}`);
export const channelId = (name: string): string => uuidFromName(`channel:${name}`);
export const campaignId = (name: string): string => uuidFromName(`campaign:${name}`);

// ---------------------------------------------------------------- companies

export interface CompanySpec {
  readonly name: string;
  readonly domain: string;
  readonly industry: string;
  readonly size: string;
}

const COMPANY_ROWS = `
Acme Corporation|acme-corp.example|Manufacturing|1001-5000
Globex|globex.example|Energy|5001-10000
Initech|initech.example|Software|201-500
Umbrella Analytics|umbrella-analytics.example|Healthcare|501-1000
Hooli|hooli.example|Internet|10001+
Stark Outfitters|stark-outfitters.example|Retail|51-200
Wayne Logistics|wayne-logistics.example|Transportation|1001-5000
Wonka Foods|wonka-foods.example|Food & Beverage|501-1000
Soylent Labs|soylent-labs.example|Biotech|51-200
Tyrell Systems|tyrell-systems.example|Software|201-500
Cyberdyne Robotics|cyberdyne.example|Robotics|1001-5000
Vandelay Industries|vandelay.example|Import & Export|11-50
Pied Piper|piedpiper.example|Software|11-50
Massive Dynamic|massive-dynamic.example|Research|5001-10000
Oscorp|oscorp.example|Chemicals|1001-5000
Nakatomi Trading|nakatomi.example|Finance|501-1000
Gringotts Bank|gringotts.example|Banking|1001-5000
Monarch Travel|monarch-travel.example|Travel|51-200
Blue Sun Media|bluesun-media.example|Media|201-500
Aperture Learning|aperture-learning.example|Education|51-200
Black Mesa Research|blackmesa.example|Research|1001-5000
Dunder Paper|dunder-paper.example|Paper & Forest Products|201-500
Sterling Cooper|sterling-cooper.example|Advertising|51-200
Prestige Worldwide|prestige-worldwide.example|Entertainment|1-10
Bluth Homes|bluth-homes.example|Real Estate|51-200
Gekko Capital|gekko-capital.example|Finance|11-50
Ollivander Crafts|ollivander.example|Retail|1-10
Rekall Travel|rekall.example|Travel|201-500
Virtucon|virtucon.example|Conglomerate|10001+
Northwind Traders|northwind.example|Wholesale|201-500
Contoso Health|contoso-health.example|Healthcare|1001-5000
Fabrikam Textiles|fabrikam.example|Textiles|501-1000
Tailspin Air|tailspin-air.example|Airlines|1001-5000
Wide World Importers|wideworld.example|Import & Export|51-200
Litware Software|litware.example|Software|11-50
Adventure Works|adventure-works.example|Sporting Goods|201-500
Proseware|proseware.example|Software|51-200
Woodgrove Bank|woodgrove.example|Banking|5001-10000
Alpine Ski House|alpine-ski-house.example|Hospitality|11-50
Coho Winery|coho-winery.example|Food & Beverage|11-50
`;

export const COMPANIES: readonly CompanySpec[] = COMPANY_ROWS.trim()
  .split('\n')
  .map((line) => {
    const [name = '', domain = '', industry = '', size = ''] = line.split('|');
    return { name, domain, industry, size };
  });
