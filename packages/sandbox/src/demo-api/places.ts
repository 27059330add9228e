/** The demo site's visitors' places: countries, their states and cities, and time zones. */

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
