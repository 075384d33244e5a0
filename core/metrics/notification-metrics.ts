import { Counter, Gauge, type Registry } from 'prom-client';

/** Notification delivery metrics (`/metrics`): attempts by channel type and outcome, and the outbox backlog. */
export class NotificationMetrics {
  /** outcome: delivered, retry (failed, will be tried again), failed (given up). */
  readonly deliveries: Counter<'type' | 'outcome'>;
  /** Events not yet fanned out plus deliveries waiting to be sent or retried. */
  readonly outboxDepth: Gauge;

  constructor({ metricsRegistry }: { metricsRegistry: Registry }) {
    const registers = [metricsRegistry];
    this.deliveries = new Counter({
      name: 'backplane_notification_deliveries_total',
      help: 'Notification delivery attempts by channel type and outcome',
      labelNames: ['type', 'outcome'],
      registers,
    });
    this.outboxDepth = new Gauge({
      name: 'backplane_notification_outbox_depth',
      help: 'Notification events and deliveries waiting to be sent',
      registers,
    });
  }
}
