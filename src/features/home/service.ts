import type { DeliveryRepo } from '../../platform/deliveries/repo.js';
import { deliveryState } from '../../platform/deliveries/describe.js';
import type { Logger } from '../../platform/log.js';
import type { Access } from '../../platform/slack/access.js';
import type { DigestService } from '../digests/service.js';
import type { WatchService } from '../watches/service.js';
import type { AlertService } from '../alerts/service.js';
import { homeView } from './blocks.js';

export interface HomeServiceDeps {
  digests: Pick<DigestService, 'ownedBy' | 'setPaused'>;
  watches: Pick<WatchService, 'ownedBy' | 'setPaused'>;
  alerts: Pick<AlertService, 'overview'>;
  deliveries: Pick<DeliveryRepo, 'unfinished' | 'get' | 'retry'>;
  /** Wakes the delivery worker. */
  queued: () => void;
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

  /** The channels the person's digests and watches post in. */
  private async channels(user: string) {
    const [digests, watches] = await Promise.all([this.deps.digests.ownedBy(user), this.deps.watches.ownedBy(user)]);
    return { digests, watches, channels: [...new Set([...digests.map((d) => d.channelId), ...watches.map((w) => w.channelId)])] };
  }

  /** What a Home button does: the same change as the command, with the same rules; a refusal in words, or undefined. */
  async act(user: string, action: 'pauseDigest' | 'resumeDigest' | 'pauseWatch' | 'resumeWatch' | 'retry', id: number): Promise<string | undefined> {
    const words = (outcome: { ok: boolean; message?: { text: string } }) => (outcome.ok ? undefined : (outcome.message?.text ?? 'That could not be done.'));
    switch (action) {
      case 'pauseDigest':
      case 'resumeDigest':
        return words(await this.deps.digests.setPaused(user, id, action === 'pauseDigest'));
      case 'pauseWatch':
      case 'resumeWatch':
        return words(await this.deps.watches.setPaused(user, id, action === 'pauseWatch'));
      case 'retry': {
        const delivery = await this.deps.deliveries.get(id);
        const { channels } = await this.channels(user);
        if (!delivery || !channels.includes(delivery.channelId)) return 'That delivery is not one of yours.';
        if (!(await this.deps.deliveries.retry(id, 6 * 3_600_000))) return 'That delivery is no longer failed.';
        this.deps.queued();
        this.deps.log.info({ delivery: id, user }, 'failed delivery retried from App Home');
        return undefined;
      }
    }
  }

  async view(user: string, problem?: string): Promise<ReturnType<typeof homeView>> {
    const { digests, watches, channels } = await this.channels(user);
    const open = channels.length > 0 ? await this.deps.deliveries.unfinished({ channels, failedWithinMs: 7 * 86_400_000, limit: 30 }) : [];
    const security = this.deps.access.maySeeSecurity(user, undefined);
    const now = this.deps.now();
    const deliveries = open
      .filter((d) => security || !SECURITY_KINDS.has(d.kind))
      .map((d) => ({ id: d.id, channelId: d.channelId, kind: d.kind, state: deliveryState(d, this.deps.timeZone, now), failed: d.status === 'failed' }));
    const overview = await this.deps.alerts.overview(user);
    const alerts = { subscriptions: overview.subscriptions, ...(overview.alerts ? { recent: overview.alerts } : {}) };
    return homeView({ digests, watches, alerts, deliveries, demo: this.deps.demo, ...(problem ? { problem } : {}) });
  }
}
