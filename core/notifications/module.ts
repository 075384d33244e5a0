import { asClass, asFunction } from 'awilix';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { NotifierOpener } from './notifier-opener.ts';
import { NotificationSender } from './notification-sender.ts';
import { Alerts } from './alerts.ts';
import { DeliveryWorker } from './delivery-worker.ts';

const services = {
  notifierOpener: asClass(NotifierOpener).singleton(),
  notificationSender: asClass(NotificationSender).singleton(),
  /** Raises events: the notification outbox and the event bus. */
  alerts: asClass(Alerts).singleton(),
  deliveryWorker: asFunction(
    (deps: ConstructorParameters<typeof DeliveryWorker>[0]) => new DeliveryWorker(deps),
  ).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({
  name: 'notifications',
  services,
  // Services that raise events declare `after: ['deliveryWorker']`: on shutdown it stops after
  // them, so what their stopping raised is sent by this master (or stays in the outbox).
  lifecycle: { deliveryWorker: { runs: 'leading', start: (s) => s.start(), stop: (s) => s.stop() } },
});
