import type { DeliveryRepo } from '../../platform/deliveries/repo.js';
import { deliveryState } from '../../platform/deliveries/describe.js';
import type { Logger } from '../../platform/log.js';
import type { Access } from '../../platform/slack/access.js';
import type { DigestService } from '../digests/service.js';
import type { WatchService } from '../watches/service.js';
import { homeView } from './blocks.js';

export interface HomeServiceDeps {
  digests: Pick<DigestService, 'ownedBy'>;
  watches: Pick<WatchService, 'ownedBy'>;
  deliveries: Pick<DeliveryRepo, 'unfinished'>;
  access: Access;
  now: () => Date;
  timeZone: string;
  demo: boolean;
  log: Logger;
}

/** Threat alerts are security details: their deliveries are listed only for those allowed to see them. */
const SECURITY_KINDS = new Set(['alert', 'burst', 'sighting']);

/** App Home: what a person has set up, and what needs a look. */
export class HomeService {
  constructor(private readonly deps: HomeServiceDeps) {}

  get log(): Logger {
    return this.deps.log;
  }

  async view(user: string): Promise<ReturnType<typeof homeView>> {
    const [digests, watches] = await Promise.all([this.deps.digests.ownedBy(user), this.deps.watches.ownedBy(user)]);
    const channels = [...new Set([...digests.map((d) => d.channelId), ...watches.map((w) => w.channelId)])];
    const open = channels.length > 0 ? await this.deps.deliveries.unfinished({ channels, failedWithinMs: 7 * 86_400_000, limit: 30 }) : [];
    const security = this.deps.access.maySeeSecurity(user, undefined);
    const now = this.deps.now();
    const deliveries = open
      .filter((d) => security || !SECURITY_KINDS.has(d.kind))
      .map((d) => ({ channelId: d.channelId, kind: d.kind, state: deliveryState(d, this.deps.timeZone, now) }));
    return homeView({ digests, watches, deliveries, demo: this.deps.demo });
  }
}
