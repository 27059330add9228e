/** The demo site's visitors' devices, systems, browsers, screens and extensions. */
import { hashString } from './random.js';

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
