/** One demo analytics account: its key, its site, its data set (made on first use), live visits and spikes. */
import type { Dataset } from './dataset.js';
import { ReportEngine } from './engine.js';
import { LiveTraffic, produce, type LiveOptions, type Scenario } from './live.js';
import type { Visit } from './model.js';
import type { DemoSite } from './site.js';
import { periodCounts, produceSpike, type PeriodCounts, type ProducedSpike, type SpikeRequest } from './spikes.js';
import type { DemoApiOptions, DemoAccount } from './server.js';

export class Account implements DemoAccount {
  readonly spikes: ProducedSpike[] = [];
  private data: { dataset: Dataset; engine: ReportEngine; live: LiveTraffic | undefined } | undefined;

  constructor(
    readonly name: string,
    readonly keyDigest: Buffer,
    readonly seed: number,
    readonly site: DemoSite,
    private readonly make: () => Dataset,
    private readonly options: Pick<DemoApiOptions, 'cacheSize' | 'now'>,
    private readonly liveOptions: LiveOptions | undefined,
    private readonly onError: (error: unknown) => void,
  ) {}

  get generated(): boolean {
    return this.data !== undefined;
  }

  generate(): NonNullable<Account['data']> {
    if (this.data) return this.data;
    const dataset = this.make();
    const startAt = (this.options.now ?? (() => new Date()))();
    this.data = {
      dataset,
      engine: new ReportEngine(dataset, this.options.cacheSize ?? 64),
      live: this.liveOptions ? new LiveTraffic(dataset, startAt, this.liveOptions) : undefined,
    };
    return this.data;
  }

  get dataset(): Dataset {
    return this.generate().dataset;
  }

  get engine(): ReportEngine {
    return this.generate().engine;
  }

  /** Live visits due by `at`; nothing for an account not generated yet (its traffic starts when it is). */
  advanceLive(at?: Date): readonly Visit[] {
    const live = this.data?.live;
    if (!live) return [];
    try {
      return live.advance(at ?? (this.options.now ?? (() => new Date()))());
    } catch (error) {
      this.onError(error);
      return [];
    }
  }

  produce(scenario: Scenario): readonly Visit[] {
    return produce(this.dataset, scenario, this.seed);
  }

  spike(request: SpikeRequest): ProducedSpike {
    const produced = produceSpike(this.dataset, request, this.seed);
    this.spikes.push(produced);
    return produced;
  }

  counts(from: Date, to: Date): PeriodCounts {
    return periodCounts(this.dataset, from, to);
  }
}
