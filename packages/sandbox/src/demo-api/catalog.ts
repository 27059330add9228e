/**
 * Static reference data the demo data set is drawn from: places, devices,
 * browsers, extensions, pages, traffic sources, campaigns and companies.
 * Nothing here depends on the seed, so tests can rely on these names.
 */

import { hashString, uuidFromName } from './random.js';

export const SITE_ORIGIN = 'https://www.example-shop.com';

// ---------------------------------------------------------------- places

export interface StateSpec {
  readonly name: string;
  readonly timezone: string;
  readonly cities: readonly string[];
}

export interface CountrySpec {
  readonly code: string;
  readonly name: string;
  readonly weight: number;
  readonly states: readonly StateSpec[];
}

type StateRow = readonly [name: string, cities: string, timezone?: string];

function country(
  code: string,
  name: string,
  weight: number,
  timezone: string,
  states: readonly StateRow[],
): CountrySpec {
  return {
    code,
    name,
    weight,
    states: states.map(([stateName, cities, tz]) => ({
      name: stateName,
      timezone: tz ?? timezone,
      cities: cities.split(',').map((c) => c.trim()),
    })),
  };
}

/**
 * Countries with relative visit weights, their regions and cities. Some city
 * names repeat on purpose (Paris FR / Paris TX, London GB / London ON,
 * Portland OR / Portland ME, three Springfields…): reports keep them apart.
 */
export const COUNTRIES: readonly CountrySpec[] = [
  country('US', 'United States', 24, 'America/New_York', [
    [
      'California',
      'Los Angeles, San Francisco, San Diego, San Jose, Sacramento, Oakland, Fresno',
      'America/Los_Angeles',
    ],
    ['New York', 'New York, Buffalo, Rochester, Albany, Syracuse'],
    ['Texas', 'Houston, Austin, Dallas, San Antonio, Fort Worth, El Paso, Paris', 'America/Chicago'],
    ['Washington', 'Seattle, Spokane, Tacoma, Bellevue, Redmond', 'America/Los_Angeles'],
    ['Illinois', 'Chicago, Springfield, Naperville, Peoria', 'America/Chicago'],
    ['Massachusetts', 'Boston, Cambridge, Worcester, Springfield'],
    ['Missouri', 'Kansas City, St. Louis, Springfield, Columbia', 'America/Chicago'],
    ['Oregon', 'Portland, Eugene, Salem, Bend', 'America/Los_Angeles'],
    ['Maine', 'Portland, Bangor, Augusta'],
    ['Florida', 'Miami, Orlando, Tampa, Jacksonville, Tallahassee'],
    ['Georgia', 'Atlanta, Savannah, Athens, Augusta'],
    ['Colorado', 'Denver, Boulder, Colorado Springs, Fort Collins', 'America/Denver'],
    ['Alabama', 'Birmingham, Montgomery, Huntsville, Mobile', 'America/Chicago'],
    ['Arizona', 'Phoenix, Tucson, Scottsdale, Tempe', 'America/Phoenix'],
    ['Pennsylvania', 'Philadelphia, Pittsburgh, Allentown, Harrisburg'],
  ]),
  country('DE', 'Germany', 9, 'Europe/Berlin', [
    ['Berlin', 'Berlin'],
    ['Bavaria', 'Munich, Nuremberg, Augsburg, Regensburg, Würzburg'],
    ['Hamburg', 'Hamburg'],
    ['North Rhine-Westphalia', 'Cologne, Düsseldorf, Dortmund, Essen, Bonn, Münster'],
    ['Hesse', 'Frankfurt am Main, Wiesbaden, Darmstadt, Kassel'],
    ['Baden-Württemberg', 'Stuttgart, Karlsruhe, Mannheim, Freiburg im Breisgau, Heidelberg'],
    ['Saxony', 'Dresden, Leipzig, Chemnitz'],
    ['Lower Saxony', 'Hanover, Brunswick, Osnabrück'],
  ]),
  country('GB', 'United Kingdom', 8, 'Europe/London', [
    [
      'England',
      'London, Manchester, Birmingham, Leeds, Liverpool, Bristol, Sheffield, Newcastle upon Tyne, Oxford, Cambridge, Brighton',
    ],
    ['Scotland', 'Edinburgh, Glasgow, Aberdeen, Dundee'],
    ['Wales', 'Cardiff, Swansea, Newport'],
    ['Northern Ireland', 'Belfast, Derry'],
  ]),
  country('FR', 'France', 6, 'Europe/Paris', [
    ['Île-de-France', 'Paris, Boulogne-Billancourt, Versailles, Saint-Denis'],
    ['Auvergne-Rhône-Alpes', 'Lyon, Grenoble, Saint-Étienne, Annecy'],
    ["Provence-Alpes-Côte d'Azur", 'Marseille, Nice, Toulon, Aix-en-Provence'],
    ['Occitanie', 'Toulouse, Montpellier, Nîmes'],
    ['Nouvelle-Aquitaine', 'Bordeaux, Limoges, Poitiers'],
    ['Hauts-de-France', 'Lille, Amiens'],
    ['Grand Est', 'Strasbourg, Reims, Metz'],
  ]),
  country('IN', 'India', 7, 'Asia/Kolkata', [
    ['Maharashtra', 'Mumbai, Pune, Nagpur, Nashik'],
    ['Karnataka', 'Bengaluru, Mysuru, Mangaluru'],
    ['Delhi', 'New Delhi, Delhi'],
    ['Tamil Nadu', 'Chennai, Coimbatore, Madurai'],
    ['Telangana', 'Hyderabad, Warangal'],
    ['West Bengal', 'Kolkata, Howrah'],
    ['Gujarat', 'Ahmedabad, Surat, Vadodara'],
  ]),
  country('BR', 'Brazil', 5, 'America/Sao_Paulo', [
    ['São Paulo', 'São Paulo, Campinas, Santos'],
    ['Rio de Janeiro', 'Rio de Janeiro, Niterói'],
    ['Minas Gerais', 'Belo Horizonte, Uberlândia'],
    ['Rio Grande do Sul', 'Porto Alegre, Caxias do Sul'],
    ['Paraná', 'Curitiba, Londrina'],
    ['Bahia', 'Salvador', 'America/Bahia'],
    ['Distrito Federal', 'Brasília'],
  ]),
  country('CA', 'Canada', 4, 'America/Toronto', [
    ['Ontario', 'Toronto, Ottawa, London, Hamilton, Waterloo'],
    ['Quebec', 'Montreal, Quebec City, Laval'],
    ['British Columbia', 'Vancouver, Victoria, Surrey', 'America/Vancouver'],
    ['Alberta', 'Calgary, Edmonton', 'America/Edmonton'],
    ['Nova Scotia', 'Halifax', 'America/Halifax'],
  ]),
  country('NL', 'Netherlands', 3, 'Europe/Amsterdam', [
    ['North Holland', 'Amsterdam, Haarlem'],
    ['South Holland', 'Rotterdam, The Hague, Leiden, Delft'],
    ['Utrecht', 'Utrecht'],
    ['North Brabant', 'Eindhoven, Tilburg'],
    ['Groningen', 'Groningen'],
  ]),
  country('ES', 'Spain', 3, 'Europe/Madrid', [
    ['Community of Madrid', 'Madrid, Alcalá de Henares'],
    ['Catalonia', 'Barcelona, Girona, Tarragona'],
    ['Andalusia', 'Seville, Málaga, Granada'],
    ['Valencian Community', 'Valencia, Alicante'],
    ['Basque Country', 'Bilbao, San Sebastián'],
  ]),
  country('IT', 'Italy', 3, 'Europe/Rome', [
    ['Lombardy', 'Milan, Bergamo, Brescia'],
    ['Lazio', 'Rome'],
    ['Piedmont', 'Turin'],
    ['Emilia-Romagna', 'Bologna, Modena, Parma'],
    ['Tuscany', 'Florence, Pisa'],
    ['Campania', 'Naples'],
    ['Veneto', 'Venice, Verona, Padua'],
  ]),
  country('AU', 'Australia', 3, 'Australia/Sydney', [
    ['New South Wales', 'Sydney, Newcastle, Wollongong'],
    ['Victoria', 'Melbourne, Geelong', 'Australia/Melbourne'],
    ['Queensland', 'Brisbane, Gold Coast', 'Australia/Brisbane'],
    ['Western Australia', 'Perth', 'Australia/Perth'],
    ['South Australia', 'Adelaide', 'Australia/Adelaide'],
  ]),
  country('JP', 'Japan', 3, 'Asia/Tokyo', [
    ['Tokyo', 'Tokyo, Hachioji'],
    ['Osaka', 'Osaka, Sakai'],
    ['Kanagawa', 'Yokohama, Kawasaki'],
    ['Aichi', 'Nagoya'],
    ['Hokkaido', 'Sapporo'],
    ['Fukuoka', 'Fukuoka, Kitakyushu'],
    ['Kyoto', 'Kyoto'],
  ]),
  country('MX', 'Mexico', 2, 'America/Mexico_City', [
    ['Mexico City', 'Mexico City'],
    ['Jalisco', 'Guadalajara, Zapopan'],
    ['Nuevo León', 'Monterrey', 'America/Monterrey'],
    ['Puebla', 'Puebla'],
    ['Yucatán', 'Mérida', 'America/Merida'],
  ]),
  country('PL', 'Poland', 2, 'Europe/Warsaw', [
    ['Masovian', 'Warsaw, Radom'],
    ['Lesser Poland', 'Kraków'],
    ['Lower Silesian', 'Wrocław'],
    ['Greater Poland', 'Poznań'],
    ['Pomeranian', 'Gdańsk, Gdynia'],
  ]),
  country('SE', 'Sweden', 2, 'Europe/Stockholm', [
    ['Stockholm County', 'Stockholm'],
    ['Västra Götaland', 'Gothenburg'],
    ['Skåne', 'Malmö, Lund'],
    ['Uppsala County', 'Uppsala'],
  ]),
  country('KR', 'South Korea', 1.5, 'Asia/Seoul', [
    ['Seoul', 'Seoul'],
    ['Busan', 'Busan'],
    ['Gyeonggi', 'Suwon, Seongnam'],
    ['Incheon', 'Incheon'],
  ]),
  country('CH', 'Switzerland', 1.5, 'Europe/Zurich', [
    ['Zurich', 'Zurich, Winterthur'],
    ['Geneva', 'Geneva'],
    ['Bern', 'Bern'],
    ['Basel-Stadt', 'Basel'],
    ['Vaud', 'Lausanne'],
  ]),
  country('AT', 'Austria', 1.2, 'Europe/Vienna', [
    ['Vienna', 'Vienna'],
    ['Styria', 'Graz'],
    ['Upper Austria', 'Linz'],
    ['Salzburg', 'Salzburg'],
    ['Tyrol', 'Innsbruck'],
  ]),
  country('BE', 'Belgium', 1.2, 'Europe/Brussels', [
    ['Brussels-Capital', 'Brussels'],
    ['Flanders', 'Antwerp, Ghent, Bruges, Leuven'],
    ['Wallonia', 'Liège, Namur, Charleroi'],
  ]),
  country('IE', 'Ireland', 1, 'Europe/Dublin', [
    ['Leinster', 'Dublin, Kilkenny'],
    ['Munster', 'Cork, Limerick'],
    ['Connacht', 'Galway'],
  ]),
  country('PT', 'Portugal', 1, 'Europe/Lisbon', [
    ['Lisbon', 'Lisbon, Sintra'],
    ['Porto', 'Porto'],
    ['Faro', 'Faro'],
    ['Braga', 'Braga'],
  ]),
  country('DK', 'Denmark', 0.8, 'Europe/Copenhagen', [
    ['Capital Region', 'Copenhagen'],
    ['Central Jutland', 'Aarhus'],
    ['Southern Denmark', 'Odense'],
  ]),
  country('NO', 'Norway', 0.8, 'Europe/Oslo', [
    ['Oslo', 'Oslo'],
    ['Vestland', 'Bergen'],
    ['Trøndelag', 'Trondheim'],
  ]),
  country('FI', 'Finland', 0.7, 'Europe/Helsinki', [
    ['Uusimaa', 'Helsinki, Espoo'],
    ['Pirkanmaa', 'Tampere'],
    ['Southwest Finland', 'Turku'],
  ]),
  country('CZ', 'Czechia', 0.8, 'Europe/Prague', [
    ['Prague', 'Prague'],
    ['South Moravian', 'Brno'],
    ['Moravian-Silesian', 'Ostrava'],
  ]),
  country('SG', 'Singapore', 1, 'Asia/Singapore', [['Singapore', 'Singapore']]),
  country('AR', 'Argentina', 1, 'America/Argentina/Buenos_Aires', [
    ['Buenos Aires', 'Buenos Aires, La Plata, Mar del Plata'],
    ['Córdoba', 'Córdoba', 'America/Argentina/Cordoba'],
    ['Santa Fe', 'Rosario', 'America/Argentina/Cordoba'],
  ]),
  country('ZA', 'South Africa', 0.8, 'Africa/Johannesburg', [
    ['Gauteng', 'Johannesburg, Pretoria'],
    ['Western Cape', 'Cape Town, Stellenbosch'],
    ['KwaZulu-Natal', 'Durban'],
  ]),
  country('NG', 'Nigeria', 0.7, 'Africa/Lagos', [
    ['Lagos', 'Lagos, Ikeja'],
    ['Federal Capital Territory', 'Abuja'],
    ['Rivers', 'Port Harcourt'],
  ]),
  country('TR', 'Turkey', 0.9, 'Europe/Istanbul', [
    ['Istanbul', 'Istanbul'],
    ['Ankara', 'Ankara'],
    ['Izmir', 'İzmir'],
  ]),
  country('UA', 'Ukraine', 0.7, 'Europe/Kyiv', [
    ['Kyiv City', 'Kyiv'],
    ['Lviv Oblast', 'Lviv'],
    ['Kharkiv Oblast', 'Kharkiv'],
    ['Odesa Oblast', 'Odesa'],
  ]),
  country('ID', 'Indonesia', 0.8, 'Asia/Jakarta', [
    ['Jakarta', 'Jakarta'],
    ['West Java', 'Bandung, Bekasi'],
    ['East Java', 'Surabaya'],
    ['Bali', 'Denpasar', 'Asia/Makassar'],
  ]),
  country('NZ', 'New Zealand', 0.5, 'Pacific/Auckland', [
    ['Auckland', 'Auckland'],
    ['Wellington', 'Wellington'],
    ['Canterbury', 'Christchurch'],
  ]),
  country('IL', 'Israel', 0.6, 'Asia/Jerusalem', [
    ['Tel Aviv District', 'Tel Aviv, Herzliya'],
    ['Jerusalem District', 'Jerusalem'],
    ['Haifa District', 'Haifa'],
  ]),
  country('AE', 'United Arab Emirates', 0.6, 'Asia/Dubai', [
    ['Dubai', 'Dubai'],
    ['Abu Dhabi', 'Abu Dhabi'],
  ]),
  country('GR', 'Greece', 0.5, 'Europe/Athens', [
    ['Attica', 'Athens, Piraeus'],
    ['Central Macedonia', 'Thessaloniki'],
  ]),
];

// ---------------------------------------------------------------- devices, systems, browsers

export type DeviceType = 'desktop' | 'mobile' | 'tablet';

export interface DeviceSpec {
  readonly type: DeviceType;
  readonly name: string;
  readonly weight: number;
  /** Operating systems with weights. */
  readonly os: readonly (readonly [string, number])[];
  /** Brand, for browsers tied to one (Samsung Internet). */
  readonly brand?: 'samsung';
}

export const DEVICE_TYPE_WEIGHTS: readonly (readonly [DeviceType, number])[] = [
  ['desktop', 55],
  ['mobile', 40],
  ['tablet', 5],
];

export const DEVICES: readonly DeviceSpec[] = [
  {
    type: 'desktop',
    name: 'Desktop',
    weight: 95,
    os: [
      ['Windows', 62],
      ['macOS', 31],
      ['Linux', 7],
    ],
  },
  { type: 'desktop', name: 'Chromebook', weight: 5, os: [['ChromeOS', 1]] },
  { type: 'mobile', name: 'iPhone', weight: 45, os: [['iOS', 1]] },
  { type: 'mobile', name: 'Galaxy S24', weight: 9, os: [['Android', 1]], brand: 'samsung' },
  { type: 'mobile', name: 'Galaxy S23', weight: 6, os: [['Android', 1]], brand: 'samsung' },
  { type: 'mobile', name: 'Galaxy A54', weight: 8, os: [['Android', 1]], brand: 'samsung' },
  { type: 'mobile', name: 'Pixel 8', weight: 6, os: [['Android', 1]] },
  { type: 'mobile', name: 'Pixel 7a', weight: 4, os: [['Android', 1]] },
  { type: 'mobile', name: 'Redmi Note 13', weight: 5, os: [['Android', 1]] },
  { type: 'mobile', name: 'OnePlus 12', weight: 3, os: [['Android', 1]] },
  { type: 'mobile', name: 'Moto G84', weight: 2, os: [['Android', 1]] },
  { type: 'tablet', name: 'iPad', weight: 70, os: [['iPadOS', 1]] },
  { type: 'tablet', name: 'Galaxy Tab S9', weight: 20, os: [['Android', 1]], brand: 'samsung' },
  { type: 'tablet', name: 'Fire HD 10', weight: 10, os: [['Fire OS', 1]] },
];

export const OS_VERSIONS: Readonly<Record<string, readonly string[]>> = {
  Windows: ['10', '11'],
  macOS: ['13.6', '14.7', '15.1'],
  Linux: ['6.5', '6.8'],
  ChromeOS: ['129.0', '130.0'],
  iOS: ['17.6', '18.0', '18.1'],
  iPadOS: ['17.6', '18.1'],
  Android: ['13', '14', '15'],
  'Fire OS': ['8.3'],
};

/** Browsers per operating system, with weights. */
export const BROWSERS_BY_OS: Readonly<Record<string, readonly (readonly [string, number])[]>> = {
  Windows: [
    ['Chrome', 65],
    ['Edge', 22],
    ['Firefox', 8],
    ['Opera', 5],
  ],
  macOS: [
    ['Chrome', 55],
    ['Safari', 35],
    ['Firefox', 7],
    ['Edge', 3],
  ],
  Linux: [
    ['Chrome', 50],
    ['Firefox', 45],
    ['Opera', 5],
  ],
  ChromeOS: [['Chrome', 1]],
  iOS: [
    ['Safari', 80],
    ['Chrome', 18],
    ['Firefox', 2],
  ],
  iPadOS: [
    ['Safari', 85],
    ['Chrome', 15],
  ],
  Android: [
    ['Chrome', 75],
    ['Samsung Internet', 15],
    ['Firefox', 4],
    ['Opera', 6],
  ],
  'Fire OS': [['Silk', 1]],
};

export const BROWSER_VERSIONS: Readonly<Record<string, readonly string[]>> = {
  Chrome: ['128.0.6613.120', '129.0.6668.90', '130.0.6723.117', '131.0.6778.86'],
  Safari: ['17.6', '18.0', '18.1'],
  Firefox: ['130.0', '131.0.3', '132.0.2'],
  Edge: ['129.0.2792.89', '130.0.2849.80', '131.0.2903.51'],
  'Samsung Internet': ['25.0', '26.0'],
  Opera: ['113.0.5230.62', '114.0.5282.102'],
  Silk: ['129.3.1'],
  HeadlessChrome: ['129.0.6668.58', '130.0.6723.58'],
  'python-requests': ['2.31.0', '2.32.3'],
  Scrapy: ['2.11.2'],
  curl: ['8.5.0', '8.10.1'],
  'Go-http-client': ['1.1', '2.0'],
};

/** Browsers that load extensions (on desktop). */
export const EXTENSION_BROWSERS: ReadonlySet<string> = new Set([
  'Chrome',
  'Edge',
  'Firefox',
  'Opera',
  'HeadlessChrome',
]);

/** User agents of scripted clients: no screen worth the name and no extensions. */
export const SCRIPT_CLIENTS: readonly (readonly [string, number])[] = [
  ['python-requests', 40],
  ['Scrapy', 20],
  ['curl', 15],
  ['Go-http-client', 25],
];

export const SCREENS: Readonly<Record<DeviceType, readonly (readonly [number, number])[]>> = {
  desktop: [
    [1920, 1080],
    [2560, 1440],
    [1366, 768],
    [1536, 864],
    [1440, 900],
    [1680, 1050],
    [3840, 2160],
    [1280, 800],
  ],
  mobile: [
    [390, 844],
    [393, 852],
    [412, 915],
    [360, 800],
    [430, 932],
    [384, 854],
  ],
  tablet: [
    [820, 1180],
    [1024, 1366],
    [800, 1280],
    [810, 1080],
  ],
};

// ---------------------------------------------------------------- extensions

export const ADBLOCK_EXTENSIONS: readonly (readonly [string, number])[] = [
  ['uBlock Origin', 55],
  ['AdBlock Plus', 25],
  ['AdBlock', 12],
  ['Ghostery', 8],
];

/** Ordinary extensions and the probability a desktop visitor has each. */
export const COMMON_EXTENSIONS: readonly (readonly [string, number])[] = [
  ['Grammarly', 0.18],
  ['LastPass', 0.08],
  ['1Password', 0.07],
  ['Bitwarden', 0.05],
  ['Honey', 0.09],
  ['Google Translate', 0.1],
  ['Dark Reader', 0.06],
  ['React Developer Tools', 0.03],
  ['Privacy Badger', 0.03],
];

export const SCRAPER_EXTENSIONS: readonly string[] = [
  'Web Scraper',
  'Data Miner',
  'Instant Data Scraper',
  'Simplescraper',
  'Listly',
  'Scraper',
];

/** A Chrome-Web-Store-style id (32 letters a–p) derived from the extension name. */
export function extensionId(name: string): string {
  let out = '';
  let h = hashString(`ext:${name}`);
  for (let i = 0; i < 32; i++) {
    if (i % 8 === 0) h = hashString(`${h}:${name}:${i}`);
    out += String.fromCharCode(97 + (h & 15));
    h >>>= 4;
  }
  return out;
}

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
